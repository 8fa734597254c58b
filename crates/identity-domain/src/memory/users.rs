//! [`UserRepository`] in memory.

use std::time::Duration;

use async_trait::async_trait;
use shared_kernel::{EventEnvelope, Page, PageRequest};
use uuid::Uuid;

use super::InMemoryIdentity;
use crate::ports::{
    AccessProfile, AdminProvision, ExistingAccount, FailedLogin, NewUser, RepoError, UserFilter, UserRecord,
    UserRepository,
};
use crate::user::{StatusChange, UserStatus};

impl InMemoryIdentity {
    fn insert_user(&self, user: NewUser, roles: &[&str], events: Vec<EventEnvelope>) -> Result<UserRecord, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let email = user.email.trim().to_lowercase();
        if state.users.values().any(|u| u.email == email) {
            return Err(RepoError::Conflict { field: "email" });
        }
        let record = UserRecord {
            id: user.id,
            email,
            name: user.name,
            password_hash: user.password_hash,
            status: UserStatus::Active,
            is_email_verified: false,
            failed_login_count: 0,
            locked_until: None,
            last_login_at: None,
            token_version: 0,
            created_at: now,
            updated_at: now,
            version: 1,
        };
        state.users.insert(record.id, record.clone());
        let role_ids: Vec<Uuid> = state
            .roles
            .values()
            .filter(|r| !r.deleted && roles.contains(&r.record.name.as_str()))
            .map(|r| r.record.id)
            .collect();
        for role in role_ids {
            state.assignments.insert((record.id, role));
        }
        state.events.extend(events);
        Ok(record)
    }

    /// Applies `change` to user `id` under the lock, bumping its version and stamp.
    fn edit_user<T>(&self, id: Uuid, change: impl FnOnce(&mut UserRecord) -> T) -> Result<(T, UserRecord), RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let user = state.users.get_mut(&id).ok_or(RepoError::NotFound)?;
        let outcome = change(user);
        user.version += 1;
        user.updated_at = now;
        Ok((outcome, user.clone()))
    }
}

#[async_trait]
impl UserRepository for InMemoryIdentity {
    async fn create(&self, user: NewUser, events: Vec<EventEnvelope>) -> Result<UserRecord, RepoError> {
        self.insert_user(user, &["user"], events)
    }

    async fn find_by_id(&self, id: Uuid) -> Result<Option<UserRecord>, RepoError> {
        Ok(self.lock().users.get(&id).cloned())
    }

    async fn find_by_email(&self, email: &str) -> Result<Option<UserRecord>, RepoError> {
        let email = email.trim().to_lowercase();
        Ok(self.lock().users.values().find(|u| u.email == email).cloned())
    }

    async fn names(&self, ids: &[Uuid]) -> Result<Vec<(Uuid, String)>, RepoError> {
        let state = self.lock();
        Ok(ids.iter().filter_map(|id| state.users.get(id).map(|u| (u.id, u.name.clone()))).collect())
    }

    async fn list(&self, filter: &UserFilter, page: PageRequest) -> Result<Page<UserRecord>, RepoError> {
        let search = filter.search.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_lowercase);
        let mut users: Vec<UserRecord> = self
            .lock()
            .users
            .values()
            .filter(|u| filter.status.is_none_or(|s| u.status == s))
            .filter(|u| filter.is_email_verified.is_none_or(|v| u.is_email_verified == v))
            .filter(|u| search.as_deref().is_none_or(|s| u.email.contains(s) || u.name.to_lowercase().contains(s)))
            .cloned()
            .collect();
        users.sort_by_key(|r| std::cmp::Reverse((r.created_at, r.id)));
        Ok(super::page_of(users, page))
    }

    async fn record_failed_login(
        &self,
        id: Uuid,
        max_failures: u32,
        lock_for: Duration,
    ) -> Result<FailedLogin, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let Some(user) = state.users.get_mut(&id) else { return Ok(FailedLogin::AlreadyLocked) };
        if user.is_locked(now) {
            return Ok(FailedLogin::AlreadyLocked);
        }
        // An expired lock restarts the count.
        user.failed_login_count = if user.locked_until.is_some() { 1 } else { user.failed_login_count + 1 };
        let limit = i32::try_from(max_failures).unwrap_or(i32::MAX);
        user.locked_until = (user.failed_login_count >= limit).then(|| now + lock_for);
        user.version += 1;
        user.updated_at = now;
        Ok(if user.locked_until.is_some() { FailedLogin::LockedNow } else { FailedLogin::Counted })
    }

    async fn record_successful_login(&self, id: Uuid) -> Result<bool, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let Some(user) = state.users.get_mut(&id) else { return Ok(false) };
        if user.is_locked(now) {
            return Ok(false);
        }
        user.failed_login_count = 0;
        user.locked_until = None;
        user.last_login_at = Some(now);
        user.version += 1;
        user.updated_at = now;
        Ok(true)
    }

    async fn change_status(
        &self,
        id: Uuid,
        change: StatusChange,
        events: Vec<EventEnvelope>,
    ) -> Result<UserRecord, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let user = state.users.get_mut(&id).ok_or(RepoError::NotFound)?;
        if user.status != change.from {
            return Err(RepoError::Stale);
        }
        user.status = change.to;
        user.token_version += i32::from(change.revokes_tokens());
        user.version += 1;
        user.updated_at = now;
        let user = user.clone();
        state.events.extend(events);
        Ok(user)
    }

    async fn change_password(
        &self,
        id: Uuid,
        password_hash: String,
        revoke_api_keys: bool,
        events: Vec<EventEnvelope>,
    ) -> Result<(), RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let user = state.users.get_mut(&id).ok_or(RepoError::NotFound)?;
        user.password_hash = password_hash;
        user.token_version += 1;
        user.failed_login_count = 0;
        user.version += 1;
        user.updated_at = now;
        if revoke_api_keys {
            for (key, _) in state.api_keys.values_mut().filter(|(k, _)| k.user_id == id && k.revoked_at.is_none()) {
                key.revoked_at = Some(now);
            }
        }
        state.events.extend(events);
        Ok(())
    }

    async fn unlock(&self, id: Uuid) -> Result<UserRecord, RepoError> {
        let ((), user) = self.edit_user(id, |user| {
            user.locked_until = None;
            user.failed_login_count = 0;
        })?;
        Ok(user)
    }

    async fn access_profile(&self, id: Uuid) -> Result<Option<AccessProfile>, RepoError> {
        let state = self.lock();
        let Some(user) = state.users.get(&id) else { return Ok(None) };
        let roles = state.roles_of(id);
        let mut permissions: Vec<String> = roles
            .iter()
            .flat_map(|r| state.grants.iter().filter(move |(role, _)| *role == r.id))
            .filter_map(|(_, p)| state.permissions.get(p).map(|p| p.name.clone()))
            .collect();
        permissions.sort();
        permissions.dedup();
        Ok(Some(AccessProfile {
            status: user.status,
            token_version: user.token_version,
            roles: roles.into_iter().map(|r| r.name).collect(),
            permissions,
        }))
    }

    async fn ensure_admin(
        &self,
        user: NewUser,
        roles: &[&str],
        existing: ExistingAccount,
        events: Vec<EventEnvelope>,
    ) -> Result<AdminProvision, RepoError> {
        let found = self.find_by_email(&user.email).await?;
        let Some(found) = found else {
            let created = self.insert_user(user, roles, events)?;
            return Ok(AdminProvision::Created(created.id));
        };
        let held = self.lock().roles_of(found.id);
        if held.iter().any(|r| r.name == "admin" || r.name == crate::SUPERADMIN) {
            return Ok(AdminProvision::AlreadyAdmin(found.id));
        }
        if existing == ExistingAccount::Refuse {
            return Ok(AdminProvision::RefusedNotAdmin);
        }
        self.edit_user(found.id, |u| {
            u.password_hash = user.password_hash;
            u.status = UserStatus::Active;
            u.token_version += 1;
            u.locked_until = None;
            u.failed_login_count = 0;
        })?;
        let mut state = self.lock();
        let role_ids: Vec<Uuid> = state
            .roles
            .values()
            .filter(|r| !r.deleted && roles.contains(&r.record.name.as_str()))
            .map(|r| r.record.id)
            .collect();
        for role in role_ids {
            state.assignments.insert((found.id, role));
        }
        Ok(AdminProvision::Promoted(found.id))
    }
}
