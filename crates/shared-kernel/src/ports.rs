//! Ports: the traits adapters implement and the application depends on.

pub mod bus;
pub mod health;
pub mod kv;

pub use bus::{BusError, EventBus, EventHandler, HandlerError};
pub use health::{HealthCheck, HealthStatus};
pub use kv::{KeyValueStore, KvError};
