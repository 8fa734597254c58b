//! Role and permission records and their repository port.

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::authz::{PermissionName, RoleName};
use crate::ports::RepoError;

#[derive(Debug, Clone)]
pub struct RoleRecord {
    pub id: Uuid,
    pub name: String,
    pub display_name: String,
    pub description: String,
    pub is_system: bool,
    pub permissions_count: i64,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

#[derive(Debug, Clone)]
pub struct PermissionRecord {
    pub id: Uuid,
    pub resource: String,
    pub action: String,
    pub name: String,
    pub description: String,
    pub created_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

pub struct NewRole {
    pub name: RoleName,
    pub display_name: String,
    pub description: String,
}

#[derive(Default)]
pub struct RoleChanges {
    pub name: Option<RoleName>,
    pub display_name: Option<String>,
    pub description: Option<String>,
}

/// Display names are 1..=100 characters.
pub fn parse_display_name(raw: &str) -> Result<String, crate::IdentityError> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(crate::IdentityError::invalid("display_name", "must be 1 to 100 characters"));
    }
    Ok(name.to_owned())
}

#[async_trait]
pub trait RoleRepository: Send + Sync {
    async fn create_role(&self, role: NewRole) -> Result<RoleRecord, RepoError>;
    async fn list_roles(&self) -> Result<Vec<RoleRecord>, RepoError>;
    async fn find_role(&self, id: Uuid) -> Result<Option<RoleRecord>, RepoError>;
    async fn find_role_by_name(&self, name: &str) -> Result<Option<RoleRecord>, RepoError>;
    /// System roles keep their name: the adapter refuses (`Stale`) a rename of one.
    async fn update_role(&self, id: Uuid, changes: RoleChanges) -> Result<RoleRecord, RepoError>;
    /// Soft delete of a non-system role; `NotFound` for a missing or system one.
    async fn delete_role(&self, id: Uuid) -> Result<(), RepoError>;
    /// Grants; returns how many were new. An unknown permission id is `NotFound`.
    async fn grant_permissions(&self, role_id: Uuid, permission_ids: &[Uuid]) -> Result<usize, RepoError>;
    async fn revoke_permission(&self, role_id: Uuid, permission_id: Uuid) -> Result<(), RepoError>;
    async fn role_permissions(&self, role_id: Uuid) -> Result<Vec<PermissionRecord>, RepoError>;
    async fn assign_role(&self, user_id: Uuid, role_id: Uuid) -> Result<bool, RepoError>;
    async fn unassign_role(&self, user_id: Uuid, role_id: Uuid) -> Result<(), RepoError>;
    async fn user_roles(&self, user_id: Uuid) -> Result<Vec<RoleRecord>, RepoError>;

    async fn create_permission(&self, name: PermissionName, description: String)
        -> Result<PermissionRecord, RepoError>;
    async fn list_permissions(&self) -> Result<Vec<PermissionRecord>, RepoError>;
    async fn find_permission(&self, id: Uuid) -> Result<Option<PermissionRecord>, RepoError>;
    async fn find_permission_by_name(&self, name: &str) -> Result<Option<PermissionRecord>, RepoError>;
    async fn update_permission(
        &self,
        id: Uuid,
        name: Option<PermissionName>,
        description: Option<String>,
    ) -> Result<PermissionRecord, RepoError>;
    async fn delete_permission(&self, id: Uuid) -> Result<(), RepoError>;
}
