//! Redis-backed store (deadpool-redis): shared by every instance.

use std::time::Duration;

use async_trait::async_trait;
use deadpool_redis::{Config, Pool, Runtime};
use shared_kernel::ports::{HealthCheck, KeyValueStore, KvError};

#[derive(Clone)]
pub struct RedisStore {
    pool: Pool,
    /// Namespace for every key, so instances of other apps (or tests) never collide.
    prefix: String,
}

impl RedisStore {
    pub fn new(url: &str, prefix: impl Into<String>) -> Result<Self, KvError> {
        let pool = Config::from_url(url)
            .create_pool(Some(Runtime::Tokio1))
            .map_err(|e| KvError::Unavailable(e.to_string()))?;
        Ok(Self { pool, prefix: prefix.into() })
    }

    pub fn pool(&self) -> &Pool {
        &self.pool
    }

    fn key(&self, key: &str) -> String {
        format!("{}:{key}", self.prefix)
    }

    async fn conn(&self) -> Result<deadpool_redis::Connection, KvError> {
        self.pool.get().await.map_err(|e| KvError::Unavailable(e.to_string()))
    }
}

fn unavailable(error: redis::RedisError) -> KvError {
    KvError::Unavailable(error.to_string())
}

fn ttl_millis(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

#[async_trait]
impl KeyValueStore for RedisStore {
    async fn get(&self, key: &str) -> Result<Option<String>, KvError> {
        let mut conn = self.conn().await?;
        redis::cmd("GET").arg(self.key(key)).query_async(&mut conn).await.map_err(unavailable)
    }

    async fn set(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<(), KvError> {
        let mut conn = self.conn().await?;
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.key(key)).arg(value);
        if let Some(ttl) = ttl {
            cmd.arg("PX").arg(ttl_millis(ttl));
        }
        cmd.query_async::<()>(&mut conn).await.map_err(unavailable)
    }

    async fn set_if_absent(&self, key: &str, value: &str, ttl: Option<Duration>) -> Result<bool, KvError> {
        let mut conn = self.conn().await?;
        let mut cmd = redis::cmd("SET");
        cmd.arg(self.key(key)).arg(value).arg("NX");
        if let Some(ttl) = ttl {
            cmd.arg("PX").arg(ttl_millis(ttl));
        }
        let stored: Option<String> = cmd.query_async(&mut conn).await.map_err(unavailable)?;
        Ok(stored.is_some())
    }

    async fn delete(&self, key: &str) -> Result<bool, KvError> {
        let mut conn = self.conn().await?;
        let removed: i64 = redis::cmd("DEL").arg(self.key(key)).query_async(&mut conn).await.map_err(unavailable)?;
        Ok(removed > 0)
    }

    async fn incr(&self, key: &str, by: i64, ttl: Option<Duration>) -> Result<i64, KvError> {
        let mut conn = self.conn().await?;
        let key = self.key(key);
        // INCRBY and the first PEXPIRE in one atomic pipeline; NX keeps the
        // TTL of an existing counter.
        let mut pipe = redis::pipe();
        pipe.atomic().cmd("INCRBY").arg(&key).arg(by);
        if let Some(ttl) = ttl {
            pipe.cmd("PEXPIRE").arg(&key).arg(ttl_millis(ttl)).arg("NX").ignore();
        }
        let (value,): (i64,) = pipe.query_async(&mut conn).await.map_err(unavailable)?;
        Ok(value)
    }

    async fn health(&self) -> HealthCheck {
        let pinged = async {
            let mut conn = self.conn().await?;
            redis::cmd("PING").query_async::<String>(&mut conn).await.map_err(unavailable)
        }
        .await;
        match pinged {
            Ok(_) => HealthCheck::healthy("redis key-value store reachable"),
            Err(error) => {
                // The cause goes to the log only: health bodies are public.
                tracing::warn!(%error, "redis key-value store health check failed");
                HealthCheck::unhealthy("redis key-value store unreachable")
            }
        }
    }

    fn backend(&self) -> &'static str {
        "redis"
    }
}
