//! In-memory store for a single instance. Expired keys are dropped lazily
//! on access and swept whenever the map has grown since the last sweep.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use shared_kernel::ports::{HealthCheck, KeyValueStore, KvError};

struct Entry {
    value: String,
    expires_at: Option<Instant>,
}

impl Entry {
    fn is_live(&self, now: Instant) -> bool {
        self.expires_at.is_none_or(|at| at > now)
    }
}

#[derive(Default)]
pub struct MemoryStore {
    entries: Mutex<HashMap<String, Entry>>,
    sweep_at_len: Mutex<usize>,
}

impl MemoryStore {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_entries<T>(&self, f: impl FnOnce(&mut HashMap<String, Entry>, Instant) -> T) -> Result<T, KvError> {
        let mut entries = self.entries.lock().map_err(|_| KvError::Unavailable("memory store poisoned".into()))?;
        let now = Instant::now();
        if let Ok(mut threshold) = self.sweep_at_len.lock() {
            if entries.len() >= (*threshold).max(1024) {
                entries.retain(|_, e| e.is_live(now));
                *threshold = entries.len() * 2;
            }
        }
        Ok(f(&mut entries, now))
    }
}

fn deadline(now: Instant, ttl: Option<Duration>) -> Option<Instant> {
    ttl.and_then(|ttl| now.checked_add(ttl))
}

#[async_trait]
impl KeyValueStore for MemoryStore {
    async fn get(&self, key: &str) -> Result<Option<String>, KvError> {
        self.with_entries(|entries, now| match entries.get(key) {
            Some(entry) if entry.is_live(now) => Some(entry.value.clone()),
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        })
    }

    async fn set(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<(), KvError> {
        self.with_entries(|entries, now| {
            entries.insert(key.to_owned(), Entry { value: value.to_owned(), expires_at: deadline(now, ttl) });
        })
    }

    async fn set_if_absent(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<bool, KvError> {
        self.with_entries(|entries, now| {
            if entries.get(key).is_some_and(|e| e.is_live(now)) {
                return false;
            }
            entries.insert(key.to_owned(), Entry { value: value.to_owned(), expires_at: deadline(now, ttl) });
            true
        })
    }

    async fn delete(&self, key: &str) -> Result<bool, KvError> {
        self.with_entries(|entries, now| entries.remove(key).is_some_and(|e| e.is_live(now)))
    }

    async fn incr(&self, key: &str, by: i64, ttl: Option<Duration>) -> Result<i64, KvError> {
        self.with_entries(|entries, now| {
            let live = entries.get(key).filter(|e| e.is_live(now));
            let (current, expires_at) = match live {
                Some(entry) => (entry.value.parse::<i64>().unwrap_or(0), entry.expires_at),
                None => (0, deadline(now, ttl)),
            };
            let next = current.saturating_add(by);
            entries.insert(key.to_owned(), Entry { value: next.to_string(), expires_at });
            next
        })
    }

    async fn health(&self) -> HealthCheck {
        HealthCheck::healthy("in-memory key-value store (single instance; set REDIS_URL to share it)")
    }

    fn backend(&self) -> &'static str {
        "memory"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn set_get_delete_and_expiry() {
        let store = MemoryStore::new();
        store.set("a", "1", None).await.expect("set");
        assert_eq!(store.get("a").await.expect("get").as_deref(), Some("1"));
        store.set("short", "x", Some(Duration::from_millis(20))).await.expect("set");
        assert!(store.exists("short").await.expect("exists"));
        tokio::time::sleep(Duration::from_millis(40)).await;
        assert_eq!(store.get("short").await.expect("get"), None);
        assert!(store.delete("a").await.expect("delete"));
        assert!(!store.delete("a").await.expect("delete"));
        assert!(store.set_if_absent("once", "1", None).await.expect("nx"));
        assert!(!store.set_if_absent("once", "2", None).await.expect("nx"));
        assert_eq!(store.get("once").await.expect("get").as_deref(), Some("1"));
    }

    #[tokio::test]
    async fn counters_keep_their_first_ttl() {
        let store = MemoryStore::new();
        assert_eq!(store.incr("n", 1, Some(Duration::from_millis(30))).await.expect("incr"), 1);
        assert_eq!(store.incr("n", 2, Some(Duration::from_secs(60))).await.expect("incr"), 3);
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(store.incr("n", 1, None).await.expect("incr"), 1);
    }
}
