//! PostgreSQL adapters of warehouse management: products, locations, inventory with its ledger of
//! stock movements, and the order flow (reserve / release / commit on order events, read from the
//! events' payloads), with the `table!`s of the context's tables (`schema`) and its table of
//! constraint names ([`CONSTRAINTS`]).
//!
//! Depends on `postgres-toolkit` (connections, transactions, the outbox, the mapper of diesel errors),
//! its own domain crate, `shared-kernel` and `event-contracts`, never on another context's domain or
//! adapter crate (`make check-boundaries`). What it needs of another context comes through a port of its
//! domain crate that the api crate wires, or in an event's payload.

pub(crate) mod errors;
/// The request field each constraint of this context's tables guards (the schema guard checks they exist).
pub use errors::CONSTRAINTS;
mod ledger;
mod rows;
pub mod schema;
mod sql;

pub mod inventory;
pub mod locations;
pub mod movements;
pub mod order_events;
pub mod order_stock;
pub mod products;
pub mod reservation_batch;

pub use inventory::PgInventoryRepository;
pub use locations::PgLocationRepository;
pub use movements::PgStockMovementRepository;
pub use order_events::OrderEventsHandler;
pub use order_stock::PgOrderStockRepository;
pub use products::PgProductRepository;
