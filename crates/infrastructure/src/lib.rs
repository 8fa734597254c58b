//! Infrastructure adapters: PostgreSQL (diesel-async + deadpool), the
//! transactional outbox and inbox, event bus adapters (in-process and Redis
//! Streams) and key-value stores (memory and Redis).

pub mod analytics;
pub mod bus;
pub mod counting;
pub mod crm;
pub mod db;
pub mod events;
pub mod group_commit;
pub mod idempotency;
pub mod identity;
pub mod kv;
pub mod orders;
pub mod pipeline;
pub mod preconditions;
pub(crate) mod prepared;
pub mod reference;
pub(crate) mod rendered;
pub mod request_tx;
pub mod schema;
pub mod shared_commit;
pub mod storage;
pub mod warehouse;
pub mod webhooks;

pub use db::{DbError, DbPool};
