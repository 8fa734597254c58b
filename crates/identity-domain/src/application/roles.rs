//! Roles, the permissions they grant, and who holds which role (administrators only; the route
//! guard checks that). Every change that alters what someone may do drops the guard's cache of it.

use std::sync::Arc;

use tracing::instrument;
use uuid::Uuid;

use super::guard::{authorize, Target};
use super::ports::AccessDirectory;
use super::{Actor, IdentityPorts};
use crate::authz::AccountAction;
use crate::ports::{RepoError, UserRepository};
use crate::roles::{NewRole, PermissionRecord, RoleChanges, RoleRecord, RoleRepository};
use crate::{IdentityError, Missing, Refusal, Taken};

/// A taken role name is `AlreadyExists(RoleName)`.
/// The most permission ids one grant may carry (docs/identity.md), counted as sent.
pub const MAX_PERMISSION_IDS: usize = 200;

/// A grant's ids: at most [`MAX_PERMISSION_IDS`] as sent, at least one, duplicates removed (first
/// kept); `Invalid { field: "permission_ids" }` otherwise.
pub fn grant_list(permission_ids: &[Uuid]) -> Result<Vec<Uuid>, IdentityError> {
    let ids = shared_kernel::bounds::unique_bounded(permission_ids, MAX_PERMISSION_IDS)
        .map_err(|e| IdentityError::invalid("permission_ids", e.to_string()))?;
    if ids.is_empty() {
        return Err(IdentityError::invalid("permission_ids", "must name at least one permission"));
    }
    Ok(ids)
}

fn duplicate_name(error: RepoError) -> IdentityError {
    match error {
        RepoError::Conflict { .. } => IdentityError::AlreadyExists(Taken::RoleName),
        other => other.into(),
    }
}

/// Roles and their holders; permissions are in `permissions.rs`.
#[derive(Clone)]
pub struct RoleAdministration {
    pub(super) roles: Arc<dyn RoleRepository>,
    users: Arc<dyn UserRepository>,
    pub(super) access: Arc<dyn AccessDirectory>,
}

impl RoleAdministration {
    /// The service over `ports`.
    pub fn new(ports: &IdentityPorts) -> Self {
        Self { roles: ports.roles.clone(), users: ports.users.clone(), access: ports.access.clone() }
    }

    async fn find(&self, id: Uuid) -> Result<RoleRecord, IdentityError> {
        self.roles.find_role(id).await?.ok_or(IdentityError::NotFound(Missing::Role))
    }

    /// Role `id`, once the actor may change it (the superadmin role is a superadmin's).
    async fn editable(&self, actor: &Actor<'_>, id: Uuid) -> Result<RoleRecord, IdentityError> {
        let role = self.find(id).await?;
        authorize(&*self.roles, actor, Target::Role(&role.name), AccountAction::EditRole).await?;
        Ok(role)
    }

    /// Creates a non-system role; a taken name is `AlreadyExists(RoleName)`.
    #[instrument(skip_all, fields(name = role.name.as_str()))]
    pub async fn create_role(&self, role: NewRole) -> Result<RoleRecord, IdentityError> {
        self.roles.create_role(role).await.map_err(duplicate_name)
    }

    /// Changes a role's name, display name or description. Refused, in this order: no such role;
    /// the superadmin rule; renaming a system role; a taken name.
    #[instrument(skip_all, fields(actor = %actor.user_id, role_id = %id))]
    pub async fn update_role(
        &self,
        actor: &Actor<'_>,
        id: Uuid,
        changes: RoleChanges,
    ) -> Result<RoleRecord, IdentityError> {
        let role = self.editable(actor, id).await?;
        self.roles.update_role(role.id, changes).await.map_err(|error| match error {
            // The adapter refuses a system role's rename as a write that matched nothing.
            RepoError::Stale => IdentityError::Refused(Refusal::RenameSystemRole),
            RepoError::NotFound => IdentityError::NotFound(Missing::Role),
            other => duplicate_name(other),
        })
    }

    /// Deletes a role that is not a system role, ending its assignments.
    #[instrument(skip_all, fields(role_id = %id))]
    pub async fn delete_role(&self, id: Uuid) -> Result<(), IdentityError> {
        let role = self.find(id).await?;
        if role.is_system {
            return Err(IdentityError::Refused(Refusal::DeleteSystemRole));
        }
        self.roles.delete_role(id).await.map_err(|error| match error {
            RepoError::NotFound => IdentityError::NotFound(Missing::Role),
            other => other.into(),
        })?;
        self.access.forget_everyone().await;
        Ok(())
    }

    /// Grants the permissions to the role; how many were new. Refused, in this order: the ids as sent
    /// are more than [`MAX_PERMISSION_IDS`] or none (`Invalid { field: "permission_ids" }`;
    /// duplicates are dropped); the role is missing or not the actor's to edit; a missing role or
    /// permission is `NotFound(GrantTarget)`.
    #[instrument(skip_all, fields(actor = %actor.user_id, role_id = %id, count = permission_ids.len()))]
    pub async fn grant_permissions(
        &self,
        actor: &Actor<'_>,
        id: Uuid,
        permission_ids: &[Uuid],
    ) -> Result<usize, IdentityError> {
        let permission_ids = grant_list(permission_ids)?;
        let role = self.editable(actor, id).await?;
        let granted = self.roles.grant_permissions(role.id, &permission_ids).await.map_err(|error| match error {
            RepoError::NotFound => IdentityError::NotFound(Missing::GrantTarget),
            other => other.into(),
        })?;
        self.access.forget_everyone().await;
        Ok(granted)
    }

    /// Takes one permission from the role.
    #[instrument(skip_all, fields(actor = %actor.user_id, role_id = %role_id, permission_id = %permission_id))]
    pub async fn revoke_permission(
        &self,
        actor: &Actor<'_>,
        role_id: Uuid,
        permission_id: Uuid,
    ) -> Result<(), IdentityError> {
        let role = self.editable(actor, role_id).await?;
        self.roles.revoke_permission(role.id, permission_id).await.map_err(|error| match error {
            RepoError::NotFound => IdentityError::NotFound(Missing::RolePermission),
            other => other.into(),
        })?;
        self.access.forget_everyone().await;
        Ok(())
    }

    /// The permissions role `id` grants.
    #[instrument(skip_all, fields(role_id = %id))]
    pub async fn role_permissions(&self, id: Uuid) -> Result<Vec<PermissionRecord>, IdentityError> {
        self.find(id).await?;
        Ok(self.roles.role_permissions(id).await?)
    }

    /// Gives the user the role: `true` when new, `false` when already held. Refused, in this order:
    /// no such role; the superadmin rule; no such user.
    #[instrument(skip_all, fields(actor = %actor.user_id, user_id = %user_id, role_id = %role_id))]
    pub async fn assign_role(&self, actor: &Actor<'_>, user_id: Uuid, role_id: Uuid) -> Result<bool, IdentityError> {
        let role = self.find(role_id).await?;
        authorize(&*self.roles, actor, Target::User(user_id), AccountAction::GrantRole(&role.name)).await?;
        let added = self.roles.assign_role(user_id, role_id).await.map_err(|error| match error {
            RepoError::MissingReference { field: "user_id" } => IdentityError::NotFound(Missing::User),
            RepoError::NotFound => IdentityError::NotFound(Missing::Role),
            other => other.into(),
        })?;
        self.access.forget_user(user_id).await;
        Ok(added)
    }

    /// The roles the user holds (`NotFound(User)` for a missing user).
    #[instrument(skip_all, fields(user_id = %user_id))]
    pub async fn user_roles(&self, user_id: Uuid) -> Result<Vec<RoleRecord>, IdentityError> {
        self.users.find_by_id(user_id).await?.ok_or(IdentityError::NotFound(Missing::User))?;
        Ok(self.roles.user_roles(user_id).await?)
    }

    /// Takes the role from the user. Refused, in this order: no such role (as not held); the
    /// superadmin rule (and nobody removes their own administrator role); not held.
    #[instrument(skip_all, fields(actor = %actor.user_id, user_id = %user_id, role_id = %role_id))]
    pub async fn unassign_role(&self, actor: &Actor<'_>, user_id: Uuid, role_id: Uuid) -> Result<(), IdentityError> {
        let not_held = IdentityError::NotFound(Missing::UserRole);
        let role = self.roles.find_role(role_id).await?.ok_or_else(|| not_held.clone())?;
        authorize(&*self.roles, actor, Target::User(user_id), AccountAction::RemoveRole(&role.name)).await?;
        self.roles.unassign_role(user_id, role_id).await.map_err(|error| match error {
            RepoError::NotFound => not_held,
            other => other.into(),
        })?;
        self.access.forget_user(user_id).await;
        Ok(())
    }
}
