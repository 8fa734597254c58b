//! Role and permission records and their repository port.

use async_trait::async_trait;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::authz::{PermissionName, RoleName};
use crate::ports::RepoError;

/// A stored, live (not deleted) role.
#[derive(Debug, Clone)]
pub struct RoleRecord {
    /// The role's identity.
    pub id: Uuid,
    /// The unique [`RoleName`] (`manager`, `sales-rep`), what guards and tokens speak of.
    pub name: String,
    /// The human name, 1..=100 characters ([`parse_display_name`]).
    pub display_name: String,
    /// Free text saying what the role is for; may be empty.
    pub description: String,
    /// One of [`crate::SYSTEM_ROLES`]: cannot be renamed or deleted.
    pub is_system: bool,
    /// How many permissions the role grants.
    pub permissions_count: i64,
    /// When the role was created.
    pub created_at: OffsetDateTime,
    /// When the role last changed.
    pub updated_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

/// A stored permission: the right to do `action` on `resource`.
#[derive(Debug, Clone)]
pub struct PermissionRecord {
    /// The permission's identity.
    pub id: Uuid,
    /// The resource side of the name (`customers`, or `*` for every resource).
    pub resource: String,
    /// The action side of the name (`read`, or `*` for every action).
    pub action: String,
    /// `resource:action`, unique, derived by the database from the two sides.
    pub name: String,
    /// Free text saying what the permission allows; may be empty.
    pub description: String,
    /// When the permission was created.
    pub created_at: OffsetDateTime,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

/// A validated role to create; never a system role (those are seeded).
pub struct NewRole {
    /// The unique role name; a taken one is `Conflict { field: "name" }`.
    pub name: RoleName,
    /// The human name, already through [`parse_display_name`].
    pub display_name: String,
    /// What the role is for; may be empty.
    pub description: String,
}

/// Validated changes to a role; `None` leaves a field as it is.
#[derive(Default)]
pub struct RoleChanges {
    /// A new unique name; refused for a system role.
    pub name: Option<RoleName>,
    /// A new human name, already through [`parse_display_name`].
    pub display_name: Option<String>,
    /// A new description.
    pub description: Option<String>,
}

/// A role's human name: trimmed, 1..=100 characters; `Invalid { field: "display_name" }` otherwise.
pub fn parse_display_name(raw: &str) -> Result<String, crate::IdentityError> {
    let name = raw.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(crate::IdentityError::invalid("display_name", "must be 1 to 100 characters"));
    }
    Ok(name.to_owned())
}

/// Roles, permissions and who holds which role. Deleted roles do not exist for any method; a change
/// to a role, its permissions or a user's roles takes effect on the holders' next request (the
/// adapter announces it so caches of callers' access are dropped, docs/identity.md).
#[async_trait]
pub trait RoleRepository: Send + Sync {
    /// Creates a non-system role; a taken name is `Conflict { field: "name" }`.
    async fn create_role(&self, role: NewRole) -> Result<RoleRecord, RepoError>;
    /// Every live role, by name.
    async fn list_roles(&self) -> Result<Vec<RoleRecord>, RepoError>;
    /// The live role `id`, if any.
    async fn find_role(&self, id: Uuid) -> Result<Option<RoleRecord>, RepoError>;
    /// The live role named exactly `name`, if any.
    async fn find_role_by_name(&self, name: &str) -> Result<Option<RoleRecord>, RepoError>;
    /// Applies the changes; `NotFound` for a missing role. System roles keep their name: the adapter
    /// refuses (`Stale`) a rename of one. A taken name is `Conflict { field: "name" }`.
    async fn update_role(&self, id: Uuid, changes: RoleChanges) -> Result<RoleRecord, RepoError>;
    /// Soft delete of a non-system role, which also ends its assignments and frees its name;
    /// `NotFound` for a missing or system one.
    async fn delete_role(&self, id: Uuid) -> Result<(), RepoError>;
    /// Grants the permissions to the role (already granted ones are kept); returns how many were
    /// new. A missing role or an unknown permission id is `NotFound`.
    async fn grant_permissions(&self, role_id: Uuid, permission_ids: &[Uuid]) -> Result<usize, RepoError>;
    /// Takes one permission from the role; `NotFound` when the role does not grant it.
    async fn revoke_permission(&self, role_id: Uuid, permission_id: Uuid) -> Result<(), RepoError>;
    /// The permissions the role grants.
    async fn role_permissions(&self, role_id: Uuid) -> Result<Vec<PermissionRecord>, RepoError>;
    /// Gives the user the role: `true` when newly assigned, `false` when already held. A missing
    /// user is `MissingReference { field: "user_id" }`, a missing role `NotFound`.
    async fn assign_role(&self, user_id: Uuid, role_id: Uuid) -> Result<bool, RepoError>;
    /// Takes the role from the user; `NotFound` when the user does not hold it.
    async fn unassign_role(&self, user_id: Uuid, role_id: Uuid) -> Result<(), RepoError>;
    /// The live roles the user holds, by name.
    async fn user_roles(&self, user_id: Uuid) -> Result<Vec<RoleRecord>, RepoError>;

    /// Creates the permission `name`; a taken name is `Conflict { field: "name" }`.
    async fn create_permission(&self, name: PermissionName, description: String)
        -> Result<PermissionRecord, RepoError>;
    /// Every permission, by name.
    async fn list_permissions(&self) -> Result<Vec<PermissionRecord>, RepoError>;
    /// The permission `id`, if any.
    async fn find_permission(&self, id: Uuid) -> Result<Option<PermissionRecord>, RepoError>;
    /// The permission named exactly `resource:action` (blanks around it ignored), if any.
    async fn find_permission_by_name(&self, name: &str) -> Result<Option<PermissionRecord>, RepoError>;
    /// Renames and/or re-describes the permission (`None` keeps a field). `*:*` never changes: it
    /// answers `NotFound`, like a missing permission; a taken name is `Conflict { field: "name" }`.
    async fn update_permission(
        &self,
        id: Uuid,
        name: Option<PermissionName>,
        description: Option<String>,
    ) -> Result<PermissionRecord, RepoError>;
    /// Deletes the permission for good, taking it from every role. `*:*`, which keeps
    /// administrators in charge, cannot go: `NotFound`, like a missing permission.
    async fn delete_permission(&self, id: Uuid) -> Result<(), RepoError>;
}
