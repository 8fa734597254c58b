//! Key-value store port: token revocation, caches and counters with TTLs.

use async_trait::async_trait;
use std::time::Duration;

use super::HealthCheck;

#[derive(Debug, thiserror::Error)]
pub enum KvError {
    #[error("key-value store unavailable: {0}")]
    Unavailable(String),
}

#[async_trait]
pub trait KeyValueStore: Send + Sync {
    async fn get(&self, key: &str) -> Result<Option<String>, KvError>;
    /// Stores `value`; with a TTL the key disappears after it.
    async fn set(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<(), KvError>;
    /// Stores `value` only when the key is absent; `true` if it stored it.
    /// Atomic: of many concurrent callers exactly one gets `true`.
    async fn set_if_absent(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<bool, KvError>;
    /// Removes the key; `true` if it existed.
    async fn delete(&self, key: &str) -> Result<bool, KvError>;
    async fn exists(&self, key: &str) -> Result<bool, KvError> {
        Ok(self.get(key).await?.is_some())
    }
    /// Adds `by` to an integer counter (missing counts as 0); the TTL is set
    /// when the key is created. Returns the new value.
    async fn incr(&self, key: &str, by: i64, ttl: Option<Duration>) -> Result<i64, KvError>;
    async fn health(&self) -> HealthCheck;
    /// Short description for health messages (`memory`, `redis`).
    fn backend(&self) -> &'static str;
}
