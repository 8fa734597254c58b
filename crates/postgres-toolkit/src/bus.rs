//! Event bus adapters: in-process (default) and Redis Streams.

pub(crate) mod delivery;
pub(crate) mod in_process;
pub(crate) mod observer;
pub mod redis_streams;

pub use delivery::RetryPolicy;
pub use in_process::InProcessBus;
pub use observer::{DeliveryObserver, PgDeliveryObserver};
pub use redis_streams::{RedisStreamsBus, StreamSettings};
