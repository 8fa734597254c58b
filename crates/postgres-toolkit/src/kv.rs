//! Key-value store adapters: in-memory (default) and Redis.

pub mod memory;
pub mod redis_store;

pub use memory::MemoryStore;
pub use redis_store::RedisStore;
