//! Users as an administrator sees them: reading an account, moving its status, lifting a lock-out.

use std::sync::Arc;

use shared_kernel::application::{settle_edit, Attempt, Clock};
use shared_kernel::{EventEnvelope, StorageError};
use time::OffsetDateTime;
use tracing::instrument;
use uuid::Uuid;

use super::guard::{authorize, Target};
use super::ports::AccessDirectory;
use super::{Actor, IdentityPorts};
use crate::authz::AccountAction;
use crate::events::UserStatusChanged;
use crate::ports::{RepoError, UserRecord, UserRepository};
use crate::roles::RoleRepository;
use crate::user::UserStatus;
use crate::{IdentityError, Missing, Refusal};

/// Who may read another user's account: administrators and managers.
const READERS_OF_OTHERS: [&str; 3] = ["admin", "superadmin", "manager"];

fn status_event(user_id: Uuid, to: UserStatus, reason: Option<&str>, at: OffsetDateTime) -> EventEnvelope {
    let payload = UserStatusChanged { user_id, reason: reason.map(str::to_owned) };
    EventEnvelope::with_payload(to.event_name(), user_id, at, &payload)
}

/// Users' status and lock-out.
#[derive(Clone)]
pub struct UserAdministration {
    users: Arc<dyn UserRepository>,
    roles: Arc<dyn RoleRepository>,
    access: Arc<dyn AccessDirectory>,
    clock: Arc<dyn Clock>,
}

impl UserAdministration {
    /// The service over `ports`.
    pub fn new(ports: &IdentityPorts) -> Self {
        Self {
            users: ports.users.clone(),
            roles: ports.roles.clone(),
            access: ports.access.clone(),
            clock: ports.clock.clone(),
        }
    }

    async fn find(&self, id: Uuid) -> Result<UserRecord, IdentityError> {
        self.users.find_by_id(id).await?.ok_or(IdentityError::NotFound(Missing::User))
    }

    /// The account `id`: one's own, or anyone's for an administrator or a manager
    /// (`Refused(NoPermission)` otherwise, before the look-up).
    #[instrument(skip_all, fields(actor = %actor.user_id, user_id = %id))]
    pub async fn view(&self, actor: &Actor<'_>, id: Uuid) -> Result<UserRecord, IdentityError> {
        if id != actor.user_id && !READERS_OF_OTHERS.iter().any(|r| actor.has_role(r)) {
            return Err(IdentityError::Refused(Refusal::NoPermission));
        }
        self.find(id).await
    }

    /// Moves the user's status (its sessions end when it leaves `active`), with an optional
    /// reason. Refused, in this order: no such user; the superadmin rule (and nobody moves
    /// their own); a move the status machine forbids. A move that loses its race is decided
    /// again on the status that won.
    #[instrument(skip_all, fields(actor = %actor.user_id, user_id = %id, to = to.as_str()))]
    pub async fn change_status(
        &self,
        actor: &Actor<'_>,
        id: Uuid,
        to: UserStatus,
        reason: Option<&str>,
    ) -> Result<UserRecord, IdentityError> {
        let user = self.find(id).await?;
        authorize(&*self.roles, actor, Target::User(id), AccountAction::ChangeStatus).await?;
        let reason = reason.map(str::trim).filter(|r| !r.is_empty());
        let moved = settle_edit(
            user,
            || self.find(id),
            |current| async move {
                let change = current.status.move_to(to)?;
                let event = status_event(id, to, reason, self.clock.now());
                Attempt::of::<IdentityError>(self.users.change_status(id, change, vec![event]).await)
            },
        )
        .await
        .map_err(|error| match error {
            IdentityError::Storage(StorageError::Stale) => IdentityError::StatusChangedMeanwhile,
            other => other,
        })?;
        self.access.forget_user(id).await;
        Ok(moved)
    }

    /// Lifts the lock-out failed logins set; the superadmin rule applies.
    #[instrument(skip_all, fields(actor = %actor.user_id, user_id = %id))]
    pub async fn unlock(&self, actor: &Actor<'_>, id: Uuid) -> Result<UserRecord, IdentityError> {
        authorize(&*self.roles, actor, Target::User(id), AccountAction::Unlock).await?;
        self.users.unlock(id).await.map_err(|error| match error {
            RepoError::NotFound => IdentityError::NotFound(Missing::User),
            other => other.into(),
        })
    }
}
