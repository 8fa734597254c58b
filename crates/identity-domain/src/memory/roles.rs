//! [`RoleRepository`] in memory.

use async_trait::async_trait;
use uuid::Uuid;

use super::{InMemoryIdentity, StoredRole};
use crate::authz::PermissionName;
use crate::ports::RepoError;
use crate::roles::{NewRole, PermissionRecord, RoleChanges, RoleRecord, RoleRepository};

#[async_trait]
impl RoleRepository for InMemoryIdentity {
    async fn create_role(&self, role: NewRole) -> Result<RoleRecord, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        if state.roles.values().any(|r| !r.deleted && r.record.name == role.name.as_str()) {
            return Err(RepoError::Conflict { field: "name" });
        }
        let record = RoleRecord {
            id: shared_kernel::new_id(),
            name: role.name.as_str().to_owned(),
            display_name: role.display_name,
            description: role.description,
            is_system: false,
            permissions_count: 0,
            created_at: now,
            updated_at: now,
            version: 1,
        };
        state.roles.insert(record.id, StoredRole { record: record.clone(), deleted: false });
        Ok(record)
    }

    async fn list_roles(&self) -> Result<Vec<RoleRecord>, RepoError> {
        let state = self.lock();
        let mut roles: Vec<RoleRecord> =
            state.roles.values().filter(|r| !r.deleted).map(|r| state.role_view(&r.record)).collect();
        roles.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(roles)
    }

    async fn find_role(&self, id: Uuid) -> Result<Option<RoleRecord>, RepoError> {
        let state = self.lock();
        Ok(state.live_role(id).map(|r| state.role_view(r)))
    }

    async fn find_role_by_name(&self, name: &str) -> Result<Option<RoleRecord>, RepoError> {
        let state = self.lock();
        Ok(state.roles.values().find(|r| !r.deleted && r.record.name == name).map(|r| state.role_view(&r.record)))
    }

    async fn update_role(&self, id: Uuid, changes: RoleChanges) -> Result<RoleRecord, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let role = state.live_role(id).ok_or(RepoError::NotFound)?.clone();
        if let Some(name) = &changes.name {
            if role.is_system && name.as_str() != role.name {
                return Err(RepoError::Stale);
            }
            if state.roles.values().any(|r| !r.deleted && r.record.id != id && r.record.name == name.as_str()) {
                return Err(RepoError::Conflict { field: "name" });
            }
        }
        let stored = state.roles.get_mut(&id).ok_or(RepoError::NotFound)?;
        let record = &mut stored.record;
        if let Some(name) = changes.name {
            record.name = name.as_str().to_owned();
        }
        if let Some(display_name) = changes.display_name {
            record.display_name = display_name;
        }
        if let Some(description) = changes.description {
            record.description = description;
        }
        record.version += 1;
        record.updated_at = now;
        let record = record.clone();
        Ok(state.role_view(&record))
    }

    async fn delete_role(&self, id: Uuid) -> Result<(), RepoError> {
        let mut state = self.lock();
        match state.roles.get_mut(&id) {
            Some(role) if !role.deleted && !role.record.is_system => role.deleted = true,
            _ => return Err(RepoError::NotFound),
        }
        state.assignments.retain(|(_, role)| *role != id);
        Ok(())
    }

    async fn grant_permissions(&self, role_id: Uuid, permission_ids: &[Uuid]) -> Result<usize, RepoError> {
        let mut state = self.lock();
        if state.live_role(role_id).is_none() || permission_ids.iter().any(|p| !state.permissions.contains_key(p)) {
            return Err(RepoError::NotFound);
        }
        Ok(permission_ids.iter().filter(|p| state.grants.insert((role_id, **p))).count())
    }

    async fn revoke_permission(&self, role_id: Uuid, permission_id: Uuid) -> Result<(), RepoError> {
        let mut state = self.lock();
        if state.live_role(role_id).is_some() && state.grants.remove(&(role_id, permission_id)) {
            Ok(())
        } else {
            Err(RepoError::NotFound)
        }
    }

    async fn role_permissions(&self, role_id: Uuid) -> Result<Vec<PermissionRecord>, RepoError> {
        let state = self.lock();
        let mut permissions: Vec<PermissionRecord> = state
            .grants
            .iter()
            .filter(|(r, _)| *r == role_id)
            .filter_map(|(_, p)| state.permissions.get(p).cloned())
            .collect();
        permissions.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(permissions)
    }

    async fn assign_role(&self, user_id: Uuid, role_id: Uuid) -> Result<bool, RepoError> {
        let mut state = self.lock();
        if !state.users.contains_key(&user_id) {
            return Err(RepoError::MissingReference { field: "user_id" });
        }
        if state.live_role(role_id).is_none() {
            return Err(RepoError::NotFound);
        }
        Ok(state.assignments.insert((user_id, role_id)))
    }

    async fn unassign_role(&self, user_id: Uuid, role_id: Uuid) -> Result<(), RepoError> {
        if self.lock().assignments.remove(&(user_id, role_id)) {
            Ok(())
        } else {
            Err(RepoError::NotFound)
        }
    }

    async fn user_roles(&self, user_id: Uuid) -> Result<Vec<RoleRecord>, RepoError> {
        Ok(self.lock().roles_of(user_id))
    }

    async fn create_permission(
        &self,
        name: PermissionName,
        description: String,
    ) -> Result<PermissionRecord, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let full = name.name();
        if state.permissions.values().any(|p| p.name == full) {
            return Err(RepoError::Conflict { field: "name" });
        }
        let record = PermissionRecord {
            id: shared_kernel::new_id(),
            resource: name.resource,
            action: name.action,
            name: full,
            description,
            created_at: now,
            version: 1,
        };
        state.permissions.insert(record.id, record.clone());
        Ok(record)
    }

    async fn list_permissions(&self) -> Result<Vec<PermissionRecord>, RepoError> {
        let mut permissions: Vec<PermissionRecord> = self.lock().permissions.values().cloned().collect();
        permissions.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(permissions)
    }

    async fn find_permission(&self, id: Uuid) -> Result<Option<PermissionRecord>, RepoError> {
        Ok(self.lock().permissions.get(&id).cloned())
    }

    async fn find_permission_by_name(&self, name: &str) -> Result<Option<PermissionRecord>, RepoError> {
        let name = name.trim();
        Ok(self.lock().permissions.values().find(|p| p.name == name).cloned())
    }

    async fn update_permission(
        &self,
        id: Uuid,
        name: Option<PermissionName>,
        description: Option<String>,
    ) -> Result<PermissionRecord, RepoError> {
        let mut state = self.lock();
        let current = state.permissions.get(&id).filter(|p| p.name != "*:*").ok_or(RepoError::NotFound)?.clone();
        if let Some(name) = &name {
            if state.permissions.values().any(|p| p.id != id && p.name == name.name()) {
                return Err(RepoError::Conflict { field: "name" });
            }
        }
        let mut record = current;
        if let Some(name) = name {
            record.name = name.name();
            record.resource = name.resource;
            record.action = name.action;
        }
        if let Some(description) = description {
            record.description = description;
        }
        record.version += 1;
        state.permissions.insert(id, record.clone());
        Ok(record)
    }

    async fn delete_permission(&self, id: Uuid) -> Result<(), RepoError> {
        let mut state = self.lock();
        if state.permissions.get(&id).is_none_or(|p| p.name == "*:*") {
            return Err(RepoError::NotFound);
        }
        state.permissions.remove(&id);
        state.grants.retain(|(_, p)| *p != id);
        Ok(())
    }
}
