//! The PostgreSQL toolkit every context's adapter crate stands on: the pool and its connections,
//! transactions, the transactional outbox and inbox, the speed mechanisms that stay
//! (docs/performance-mechanisms.md), and the one diesel error mapper. It knows no context: no
//! context's tables, types or rules are in here, only the tables every context shares (the outbox,
//! inbox, dead letters, bus instances and reference data).
//!
//! # The façade: what a context adapter uses
//!
//! An adapter crate (`identity-postgres`, `crm-postgres`, `order-postgres`, `warehouse-postgres`)
//! needs these, and nothing else of this crate:
//!
//! - **Get a connection:** [`storage::connect`] (for writes and transactions) or
//!   [`storage::connect_shared`] (for a read outside any transaction). Both answer the request
//!   transaction's connection when the request runs in one (`Idempotency-Key`, `If-Match`;
//!   [`request_tx`]), else a pooled one, so an adapter never asks which.
//! - **Run a transaction:** [`pipeline::transaction`] (its `BEGIN` pipelined with the first
//!   statements; a savepoint inside a request transaction), with [`pipeline::write_with_followers`]
//!   and [`pipeline::row_or_roll_back`] for a compare-and-set sent together with the rows that
//!   follow from it.
//! - **Map errors:** a context's [`storage::Constraints`] table (constraint name → request field)
//!   maps a diesel error to [`shared_kernel::StorageError`]; [`storage::TxError`] carries a refusal
//!   a transaction body decided.
//! - **Record events:** [`events::record_event`] writes a change's events to the outbox in the
//!   change's transaction; a consumer claims its [`events::Delivery`] (the inbox) in the
//!   transaction of its own change; [`DbPool::wake_relay`] wakes the relay after a commit.
//! - **Group commit** (an event handler's events that arrive together, done in one transaction):
//!   implement [`group_commit::Batched`] and queue through a [`group_commit::GroupCommit`].
//! - **Shared commit** (request writes that arrive together, sharing one `COMMIT`): implement
//!   [`shared_commit::TransactionWrite`] and hand it to a [`shared_commit::SharedCommit`].
//! - **Lists:** [`list_page!`] loads a page and its total, counted up to a bound ([`counting`]).
//! - **Statements:** wrap a write in [`prepared::Prepared`] to keep it prepared by its SQL text;
//!   read a row with [`rendered::FirstRenderedOnce::first_rendered_once`] to render its text once
//!   per thread. Each module's doc says which statements may use it.
//!
//! # What the api crate uses besides
//!
//! The application wires and runs what is not an adapter's business: [`db`] (building the pool,
//! migrations, health probes, table statistics), [`request_tx`], [`idempotency`] and
//! [`preconditions`] (the stores behind `Idempotency-Key` and `If-Match`), [`events`]' relay,
//! hand-off, bus instances, dead letters and event log, [`reference`](mod@reference) (seeding and reading
//! countries, currencies, languages and timezones), [`bus`] and [`kv`].
//!
//! # Why the buses and key-value stores are here
//!
//! The buses are the outbox's other half: the in-process bus keeps its events in
//! `outbox_in_flight` until every handler is done and dead-letters through [`events`], and the relay
//! publishes to Redis Streams in the transaction that marks a row; a crate of their own would need
//! the outbox's bookkeeping made public. The key-value stores (memory and Redis, behind
//! `shared_kernel::ports::KeyValueStore`) are two small adapters used by the api crate alone; they
//! sit beside the Redis bus, which speaks to the same Redis, rather than in a crate of their own.
//!
//! # Internal
//!
//! The diesel `table!`s of the shared tables (`schema`) are internal: a context adapter declares
//! its own tables and reaches the shared ones only through the functions above.

pub mod bus;
pub mod counting;
pub mod db;
pub mod events;
pub mod group_commit;
pub mod idempotency;
pub mod kv;
pub mod pipeline;
pub mod preconditions;
pub mod prepared;
pub mod reference;
pub mod rendered;
pub mod request_tx;
pub(crate) mod schema;
pub mod shared_commit;
pub mod storage;

pub use db::{DbError, DbPool};
