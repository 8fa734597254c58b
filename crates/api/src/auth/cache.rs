//! The caller's roles, permissions, status and token version, read from the
//! database through the key-value store (shared by every instance when
//! Redis is configured). A change to one user's roles or status drops that
//! user's entry; a change to a role's permissions bumps the epoch, which
//! retires every entry at once.

use std::sync::Arc;
use std::time::Duration;

use identity_domain::ports::{AccessProfile, UserRepository};
use shared_kernel::ports::KeyValueStore;
use uuid::Uuid;

use crate::http::ApiError;

const TTL: Duration = Duration::from_secs(60);
const EPOCH_KEY: &str = "authz:epoch";

#[derive(Clone)]
pub struct AccessCache {
    kv: Arc<dyn KeyValueStore>,
    users: Arc<dyn UserRepository>,
}

impl AccessCache {
    pub fn new(kv: Arc<dyn KeyValueStore>, users: Arc<dyn UserRepository>) -> Self {
        Self { kv, users }
    }

    async fn epoch(&self) -> String {
        self.kv.get(EPOCH_KEY).await.ok().flatten().unwrap_or_else(|| "0".to_owned())
    }

    fn key(epoch: &str, user_id: Uuid) -> String {
        format!("authz:{epoch}:{user_id}")
    }

    /// `None` when the user no longer exists.
    pub async fn get(&self, user_id: Uuid) -> Result<Option<AccessProfile>, ApiError> {
        let key = Self::key(&self.epoch().await, user_id);
        if let Ok(Some(cached)) = self.kv.get(&key).await {
            if let Ok(profile) = serde_json::from_str::<AccessProfile>(&cached) {
                return Ok(Some(profile));
            }
        }
        self.load(&key, user_id).await
    }

    /// Reads the profile from the database and caches it, whatever is cached.
    /// A token newer than the cached entry (another process changed the user)
    /// is the cue to call this.
    pub async fn reload(&self, user_id: Uuid) -> Result<Option<AccessProfile>, ApiError> {
        let key = Self::key(&self.epoch().await, user_id);
        self.load(&key, user_id).await
    }

    async fn load(&self, key: &str, user_id: Uuid) -> Result<Option<AccessProfile>, ApiError> {
        let profile = self.users.access_profile(user_id).await.map_err(|e| ApiError::from_domain(&e))?;
        if let Some(profile) = &profile {
            if let Ok(text) = serde_json::to_string(profile) {
                // A cache that cannot be written only costs a query next time.
                let _ = self.kv.set(key, &text, Some(TTL)).await;
            }
        }
        Ok(profile)
    }

    pub async fn invalidate_user(&self, user_id: Uuid) {
        let key = Self::key(&self.epoch().await, user_id);
        if let Err(error) = self.kv.delete(&key).await {
            tracing::warn!(%error, %user_id, "could not drop a cached access profile");
        }
    }

    pub async fn invalidate_all(&self) {
        if let Err(error) = self.kv.incr(EPOCH_KEY, 1, None).await {
            tracing::warn!(%error, "could not bump the access cache epoch");
        }
    }
}
