//! Permissions (administrators only): `resource:action` names roles grant. `*:*`, which keeps
//! administrators in charge, never changes.

use tracing::instrument;
use uuid::Uuid;

use super::roles::RoleAdministration;
use crate::authz::PermissionName;
use crate::ports::RepoError;
use crate::roles::PermissionRecord;
use crate::{IdentityError, Missing, Refusal, Taken};

/// The one permission that never changes.
const ALL: &str = "*:*";

fn write_error(error: RepoError) -> IdentityError {
    match error {
        RepoError::Conflict { .. } => IdentityError::AlreadyExists(Taken::Permission),
        RepoError::NotFound => IdentityError::NotFound(Missing::Permission),
        other => other.into(),
    }
}

impl RoleAdministration {
    async fn find_permission(&self, id: Uuid) -> Result<PermissionRecord, IdentityError> {
        self.roles.find_permission(id).await?.ok_or(IdentityError::NotFound(Missing::Permission))
    }

    /// Creates the permission `name`; a taken one is `AlreadyExists(Permission)`.
    #[instrument(skip_all)]
    pub async fn create_permission(
        &self,
        name: PermissionName,
        description: String,
    ) -> Result<PermissionRecord, IdentityError> {
        self.roles.create_permission(name, description).await.map_err(write_error)
    }

    /// Changes either side of the permission's name (the other side kept) or its description.
    /// Refused, in this order: no such permission; `*:*`; an invalid side; a taken name.
    #[instrument(skip_all, fields(permission_id = %id))]
    pub async fn update_permission(
        &self,
        id: Uuid,
        resource: Option<&str>,
        action: Option<&str>,
        description: Option<String>,
    ) -> Result<PermissionRecord, IdentityError> {
        let current = self.find_permission(id).await?;
        if current.name == ALL {
            return Err(IdentityError::Refused(Refusal::ChangeAllPermission));
        }
        let name = match (resource, action) {
            (None, None) => None,
            (resource, action) => {
                Some(PermissionName::new(resource.unwrap_or(&current.resource), action.unwrap_or(&current.action))?)
            }
        };
        let description = description.map(|d| d.trim().to_owned());
        let permission = self.roles.update_permission(id, name, description).await.map_err(write_error)?;
        self.access.forget_everyone().await;
        Ok(permission)
    }

    /// Deletes the permission for good, taking it from every role; never `*:*`.
    #[instrument(skip_all, fields(permission_id = %id))]
    pub async fn delete_permission(&self, id: Uuid) -> Result<(), IdentityError> {
        let current = self.find_permission(id).await?;
        if current.name == ALL {
            return Err(IdentityError::Refused(Refusal::DeleteAllPermission));
        }
        self.roles.delete_permission(id).await.map_err(write_error)?;
        self.access.forget_everyone().await;
        Ok(())
    }
}
