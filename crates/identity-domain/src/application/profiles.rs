//! Profiles (docs/contacts-and-profiles.md): one per user. Owners read and change their own;
//! anyone signed in reads public ones; administrators verify and ban, a superadmin's only as a
//! superadmin.

use std::sync::Arc;

use shared_kernel::application::Clock;
use shared_kernel::{Page, PageRequest};
use tracing::instrument;
use uuid::Uuid;

use super::guard::{authorize, Target};
use super::{Actor, IdentityPorts};
use crate::authz::AccountAction;
use crate::ports::RepoError;
use crate::profile::{Moderation, NewProfile, ProfileCreation, ProfileFields, ProfileRecord, ProfileRepository};
use crate::roles::RoleRepository;
use crate::{IdentityError, Missing, Refusal, Taken};

fn repo_error(error: RepoError) -> IdentityError {
    match error {
        RepoError::NotFound => IdentityError::NotFound(Missing::Profile),
        RepoError::Conflict { .. } => IdentityError::AlreadyExists(Taken::Profile),
        RepoError::MissingReference { field } => IdentityError::invalid(field, "must exist in the reference data"),
        other => other.into(),
    }
}

/// Users' profiles.
#[derive(Clone)]
pub struct Profiles {
    profiles: Arc<dyn ProfileRepository>,
    roles: Arc<dyn RoleRepository>,
    clock: Arc<dyn Clock>,
}

impl Profiles {
    /// The service over `ports`.
    pub fn new(ports: &IdentityPorts) -> Self {
        Self { profiles: ports.profiles.clone(), roles: ports.roles.clone(), clock: ports.clock.clone() }
    }

    fn validate(&self, fields: ProfileFields, creating: bool) -> Result<ProfileFields, IdentityError> {
        fields.validate(creating, self.clock.now().date())
    }

    async fn find(&self, id: Uuid) -> Result<ProfileRecord, IdentityError> {
        self.profiles.find_by_id(id).await.map_err(repo_error)?.ok_or(IdentityError::NotFound(Missing::Profile))
    }

    /// The owner's profile `id`: `NotFound` when missing, `Refused(OthersProfile)` when someone else's.
    async fn owned(&self, owner: Uuid, id: Uuid) -> Result<ProfileRecord, IdentityError> {
        let profile = self.find(id).await?;
        if profile.user_id != owner {
            return Err(IdentityError::Refused(Refusal::OthersProfile));
        }
        Ok(profile)
    }

    async fn apply(&self, owner: Uuid, id: Uuid, fields: ProfileFields) -> Result<ProfileRecord, IdentityError> {
        self.profiles.update(owner, id, fields).await.map_err(repo_error)
    }

    /// Creates the owner's profile. Refused: invalid fields; a profile already
    /// (`AlreadyExists(Profile)`); a banned one before (`ProfileBanned`, a ban outlives it).
    #[instrument(skip_all, fields(user_id = %owner))]
    pub async fn create(&self, owner: Uuid, fields: ProfileFields) -> Result<ProfileRecord, IdentityError> {
        let fields = self.validate(fields, true)?;
        let profile = NewProfile { id: shared_kernel::new_id(), user_id: owner, fields };
        match self.profiles.create(profile).await.map_err(repo_error)? {
            ProfileCreation::Created(profile) => Ok(*profile),
            ProfileCreation::Banned => Err(IdentityError::ProfileBanned),
        }
    }

    /// The owner's profile (`NotFound(OwnProfile)` before one is made).
    #[instrument(skip_all, fields(user_id = %owner))]
    pub async fn mine(&self, owner: Uuid) -> Result<ProfileRecord, IdentityError> {
        self.profiles.find_by_user(owner).await.map_err(repo_error)?.ok_or(IdentityError::NotFound(Missing::OwnProfile))
    }

    /// Changes the owner's profile; the fields are checked before the profile is looked up.
    #[instrument(skip_all, fields(user_id = %owner))]
    pub async fn update_mine(&self, owner: Uuid, fields: ProfileFields) -> Result<ProfileRecord, IdentityError> {
        let fields = self.validate(fields, false)?;
        let profile = self.mine(owner).await?;
        self.apply(owner, profile.id, fields).await
    }

    /// Profile `id` as `viewer` may see it: their own, or a publicly visible one (`NotFound` otherwise).
    #[instrument(skip_all, fields(user_id = %viewer, profile_id = %id))]
    pub async fn view(&self, viewer: Uuid, id: Uuid) -> Result<ProfileRecord, IdentityError> {
        let profile = self.find(id).await?;
        if profile.user_id == viewer || profile.is_publicly_visible() {
            Ok(profile)
        } else {
            Err(IdentityError::NotFound(Missing::Profile))
        }
    }

    /// Changes the owner's profile `id`; ownership is checked before the fields.
    #[instrument(skip_all, fields(user_id = %owner, profile_id = %id))]
    pub async fn update(&self, owner: Uuid, id: Uuid, fields: ProfileFields) -> Result<ProfileRecord, IdentityError> {
        let profile = self.owned(owner, id).await?;
        let fields = self.validate(fields, false)?;
        self.apply(owner, profile.id, fields).await
    }

    /// Shows or hides the owner's profile `id`.
    #[instrument(skip_all, fields(user_id = %owner, profile_id = %id))]
    pub async fn set_visibility(&self, owner: Uuid, id: Uuid, is_public: bool) -> Result<ProfileRecord, IdentityError> {
        let profile = self.owned(owner, id).await?;
        let fields = ProfileFields { is_public: Some(is_public), ..ProfileFields::default() };
        self.apply(owner, profile.id, fields).await
    }

    /// Deletes the owner's profile `id` (a ban on it stays).
    #[instrument(skip_all, fields(user_id = %owner, profile_id = %id))]
    pub async fn delete(&self, owner: Uuid, id: Uuid) -> Result<(), IdentityError> {
        let profile = self.owned(owner, id).await?;
        self.profiles.delete(owner, profile.id).await.map_err(repo_error)
    }

    /// An administrator verifies or bans profile `id`; the superadmin rule applies to its owner.
    #[instrument(skip_all, fields(actor = %actor.user_id, profile_id = %id))]
    pub async fn moderate(
        &self,
        actor: &Actor<'_>,
        id: Uuid,
        action: Moderation,
    ) -> Result<ProfileRecord, IdentityError> {
        let profile = self.find(id).await?;
        authorize(&*self.roles, actor, Target::User(profile.user_id), AccountAction::ModerateProfile).await?;
        self.profiles.moderate(id, action).await.map_err(repo_error)
    }

    /// Public, active, not banned profiles, newest first.
    #[instrument(skip_all)]
    pub async fn list_public(&self, page: PageRequest) -> Result<Page<ProfileRecord>, IdentityError> {
        self.profiles.list_public(page).await.map_err(repo_error)
    }
}
