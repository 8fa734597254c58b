//! Key-value store adapters: in-memory (default) and Redis.

pub(crate) mod memory;
pub(crate) mod redis_store;

pub use memory::MemoryStore;
pub use redis_store::RedisStore;
