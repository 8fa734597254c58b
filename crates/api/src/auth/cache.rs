//! The caller's roles, permissions, status and token version, read from the
//! database through the key-value store (shared by every instance when
//! Redis is configured). A change to one user's roles or status drops that
//! user's entry; a change to a role's permissions bumps the epoch, which
//! retires every entry at once.
//!
//! While the `tally_auth` listener is live (PostgreSQL revocations, no Redis),
//! profiles are kept parsed in process memory instead (`LiveAuth`), and the
//! database's notices keep them current across instances. While it is not (and
//! without Redis), every profile is read from PostgreSQL: a copy in this
//! process's memory is one other instances could not clear (docs/bounded-work.md).

use postgres_toolkit::request_tx;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use identity_domain::application::ports::{AccessDirectory, SessionAccess};
use identity_domain::ports::{AccessProfile, UserRepository};
use identity_domain::IdentityError;
use shared_kernel::ports::KeyValueStore;
use uuid::Uuid;

use super::live::{CallerAccess, LiveAuth};
use crate::http::ApiError;

const TTL: Duration = Duration::from_secs(60);
const EPOCH_KEY: &str = "authz:epoch";

#[derive(Clone)]
pub struct AccessCache {
    kv: Arc<dyn KeyValueStore>,
    /// Whether `kv` is shared by every instance (Redis); a per-process store caches nothing.
    kv_shared: bool,
    users: Arc<dyn UserRepository>,
    live: Arc<LiveAuth>,
}

type Found = Result<Option<Arc<CallerAccess>>, ApiError>;

impl AccessCache {
    pub fn new(
        kv: Arc<dyn KeyValueStore>,
        kv_shared: bool,
        users: Arc<dyn UserRepository>,
        live: Arc<LiveAuth>,
    ) -> Self {
        Self { kv, kv_shared, users, live }
    }

    async fn epoch(&self) -> String {
        self.kv.get(EPOCH_KEY).await.ok().flatten().unwrap_or_else(|| "0".to_owned())
    }

    fn key(epoch: &str, user_id: Uuid) -> String {
        format!("authz:{epoch}:{user_id}")
    }

    /// `None` when the user no longer exists.
    pub async fn get(&self, user_id: Uuid) -> Found {
        match self.live.profile(user_id) {
            Some(Ok(access)) => return Ok(Some(access)),
            Some(Err(generation)) => return self.load_live(user_id, generation).await,
            None => {}
        }
        if !self.kv_shared {
            return self.read_uncached(user_id).await;
        }
        let key = Self::key(&self.epoch().await, user_id);
        if let Ok(Some(cached)) = self.kv.get(&key).await {
            if let Ok(profile) = serde_json::from_str::<AccessProfile>(&cached) {
                return Ok(Some(Arc::new(profile.into())));
            }
        }
        self.load(&key, user_id).await
    }

    /// Reads the profile from the database and caches it, whatever is cached.
    /// A token newer than the cached entry (another process changed the user)
    /// is the cue to call this.
    #[tracing::instrument(level = "debug", name = "access.reload", skip_all, fields(user_id = %user_id))]
    pub async fn reload(&self, user_id: Uuid) -> Found {
        if let Some(generation) = self.live.generation() {
            return self.load_live(user_id, generation).await;
        }
        if !self.kv_shared {
            return self.read_uncached(user_id).await;
        }
        let key = Self::key(&self.epoch().await, user_id);
        self.load(&key, user_id).await
    }

    async fn read(&self, user_id: Uuid) -> Result<Option<AccessProfile>, ApiError> {
        self.users.access_profile(user_id).await.map_err(|e| ApiError::from_domain(&e))
    }

    /// From the database, kept nowhere: the store is this process's alone (docs/bounded-work.md).
    async fn read_uncached(&self, user_id: Uuid) -> Found {
        Ok(self.read(user_id).await?.map(|profile| Arc::new(profile.into())))
    }

    async fn load_live(&self, user_id: Uuid, generation: u64) -> Found {
        let Some(profile) = self.read(user_id).await? else { return Ok(None) };
        let access = Arc::new(CallerAccess::from(profile));
        self.live.remember(user_id, access.clone(), generation);
        Ok(Some(access))
    }

    #[tracing::instrument(level = "debug", name = "access.load", skip_all, fields(user_id = %user_id))]
    async fn load(&self, key: &str, user_id: Uuid) -> Found {
        let Some(profile) = self.read(user_id).await? else { return Ok(None) };
        if let Ok(text) = serde_json::to_string(&profile) {
            // A cache that cannot be written only costs a query next time.
            let _ = self.kv.set(key, &text, Some(TTL)).await;
        }
        Ok(Some(Arc::new(profile.into())))
    }

    /// Call after a change to the user's roles, status or token version. Inside a request
    /// transaction the change commits later: the entry is dropped again then, so a profile a
    /// concurrent request read before the commit is not kept.
    #[tracing::instrument(level = "debug", name = "access.invalidate_user", skip_all, fields(user_id = %user_id))]
    pub async fn invalidate_user(&self, user_id: Uuid) {
        self.forget_user(user_id).await;
        let cache = self.clone();
        request_tx::after_commit(Box::pin(async move { cache.forget_user(user_id).await }));
    }

    /// Call after a change to any role's permissions (dropped again after the commit, as above).
    #[tracing::instrument(level = "debug", name = "access.invalidate_all", skip_all)]
    pub async fn invalidate_all(&self) {
        self.forget_all().await;
        let cache = self.clone();
        request_tx::after_commit(Box::pin(async move { cache.forget_all().await }));
    }

    async fn forget_user(&self, user_id: Uuid) {
        self.live.forget_user(user_id);
        let key = Self::key(&self.epoch().await, user_id);
        if let Err(error) = self.kv.delete(&key).await {
            tracing::warn!(%error, %user_id, "could not drop a cached access profile");
        }
    }

    async fn forget_all(&self) {
        self.live.forget_all();
        if let Err(error) = self.kv.incr(EPOCH_KEY, 1, None).await {
            tracing::warn!(%error, "could not bump the access cache epoch");
        }
    }
}

/// A cache failure as the use cases' error: only the database behind it fails (503 or 500), so the
/// answer keeps its status.
fn storage_failure(error: ApiError) -> IdentityError {
    let cause = error.message;
    let storage = if error.status == actix_web::http::StatusCode::SERVICE_UNAVAILABLE {
        shared_kernel::StorageError::Unavailable(cause)
    } else {
        shared_kernel::StorageError::Unknown(cause)
    };
    IdentityError::Storage(storage)
}

/// The identity use cases read and clear the guard's cache through this port.
#[async_trait]
impl AccessDirectory for AccessCache {
    async fn roles_of(&self, user_id: Uuid) -> Result<Vec<String>, IdentityError> {
        Ok(self.get(user_id).await.map_err(storage_failure)?.map(|p| p.roles.to_vec()).unwrap_or_default())
    }

    async fn reload(&self, user_id: Uuid) -> Result<Option<SessionAccess>, IdentityError> {
        let access = AccessCache::reload(self, user_id).await.map_err(storage_failure)?;
        Ok(access.map(|a| SessionAccess { status: a.status, token_version: a.token_version, roles: a.roles.to_vec() }))
    }

    async fn forget_user(&self, user_id: Uuid) {
        self.invalidate_user(user_id).await;
    }

    async fn forget_everyone(&self) {
        self.invalidate_all().await;
    }
}
