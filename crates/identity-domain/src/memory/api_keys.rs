//! [`ApiKeyRepository`] in memory.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest};
use time::OffsetDateTime;
use uuid::Uuid;

use super::InMemoryIdentity;
use crate::api_key::{ApiKeyRecord, ApiKeyRepository, MAX_LIVE_KEYS_PER_USER};
use crate::ports::RepoError;

#[async_trait]
impl ApiKeyRepository for InMemoryIdentity {
    async fn create(&self, key: &ApiKeyRecord, key_hash: &[u8]) -> Result<Option<ApiKeyRecord>, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        if !state.users.contains_key(&key.user_id) {
            return Err(RepoError::MissingReference { field: "user_id" });
        }
        let live = state.api_keys.values().filter(|(k, _)| k.user_id == key.user_id && k.usable(now).is_ok()).count();
        if i64::try_from(live).unwrap_or(i64::MAX) >= MAX_LIVE_KEYS_PER_USER {
            return Ok(None);
        }
        state.api_keys.insert(key.id, (key.clone(), key_hash.to_vec()));
        Ok(Some(key.clone()))
    }

    async fn list(&self, owner: Option<Uuid>, page: PageRequest) -> Result<Page<ApiKeyRecord>, RepoError> {
        let mut keys: Vec<ApiKeyRecord> = self
            .lock()
            .api_keys
            .values()
            .filter(|(k, _)| owner.is_none_or(|o| k.user_id == o))
            .map(|(k, _)| k.clone())
            .collect();
        keys.sort_by_key(|r| std::cmp::Reverse((r.created_at, r.id)));
        Ok(super::page_of(keys, page))
    }

    async fn revoke(&self, id: Uuid, owner: Option<Uuid>, at: OffsetDateTime) -> Result<ApiKeyRecord, RepoError> {
        let mut state = self.lock();
        let (key, _) = state
            .api_keys
            .get_mut(&id)
            .filter(|(k, _)| owner.is_none_or(|o| k.user_id == o))
            .ok_or(RepoError::NotFound)?;
        key.revoked_at.get_or_insert(at);
        Ok(key.clone())
    }

    async fn find(&self, id: Uuid) -> Result<Option<ApiKeyRecord>, RepoError> {
        Ok(self.lock().api_keys.get(&id).map(|(k, _)| k.clone()))
    }

    /// Records the use at most once a minute per key, as the PostgreSQL adapter does.
    async fn find_by_hash(&self, key_hash: &[u8]) -> Result<Option<ApiKeyRecord>, RepoError> {
        let now = self.now();
        let mut state = self.lock();
        let Some((key, _)) = state.api_keys.values_mut().find(|(_, hash)| hash == key_hash) else { return Ok(None) };
        if key.usable(now).is_ok() && key.last_used_at.is_none_or(|at| now - at >= time::Duration::minutes(1)) {
            key.last_used_at = Some(now);
        }
        Ok(Some(key.clone()))
    }
}
