//! Ports: the traits adapters implement and the application depends on.
//!
//! - [`EventBus`] and [`EventHandler`]: publish/subscribe between contexts, delivery at least once;
//! - [`KeyValueStore`]: token revocations, caches and counters with TTLs;
//! - [`HealthCheck`]: what a dependency's probe reports to the health endpoints.

pub mod bus;
pub mod health;
pub mod kv;

pub use bus::{BusError, EventBus, EventHandler, HandlerError};
pub use health::{HealthCheck, HealthStatus};
pub use kv::{KeyValueStore, KvError};
