//! Key-value store port: token revocation, caches and counters with TTLs.

use async_trait::async_trait;
use std::time::Duration;

use super::HealthCheck;

/// Why a key-value operation failed.
#[derive(Debug, thiserror::Error)]
pub enum KvError {
    /// The store cannot be reached or refused the command; the text is for the log only.
    #[error("key-value store unavailable: {0}")]
    Unavailable(String),
}

/// A key-value store with optional per-key TTLs: in memory for one instance, Redis when instances
/// share it. Keys and values are text; an expired key reads as absent. Callers choose the key
/// prefixes; the store gives them no meaning.
#[async_trait]
pub trait KeyValueStore: Send + Sync {
    /// The value under `key`; `None` when the key is absent or expired.
    async fn get(&self, key: &str) -> Result<Option<String>, KvError>;
    /// Stores `value`, replacing any earlier one; with a TTL the key disappears after it, without one
    /// it stays until deleted.
    async fn set(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<(), KvError>;
    /// Stores `value` only when the key is absent; `true` if it stored it.
    /// Atomic: of many concurrent callers exactly one gets `true`.
    async fn set_if_absent(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<bool, KvError>;
    /// Removes the key; `true` if it existed.
    async fn delete(&self, key: &str) -> Result<bool, KvError>;
    /// Whether `key` holds a value now (by default, a [`get`](Self::get)).
    async fn exists(&self, key: &str) -> Result<bool, KvError> {
        Ok(self.get(key).await?.is_some())
    }
    /// Adds `by` to an integer counter (missing counts as 0); the TTL is set
    /// when the key is created. Returns the new value. Atomic: concurrent increments all count.
    async fn incr(&self, key: &str, by: i64, ttl: Option<Duration>) -> Result<i64, KvError>;
    /// Probes the store, for the health endpoints.
    async fn health(&self) -> HealthCheck;
    /// Short description for health messages (`memory`, `redis`).
    fn backend(&self) -> &'static str;
}
