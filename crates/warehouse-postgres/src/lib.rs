//! PostgreSQL adapters of warehouse management: products, locations, inventory with its ledger of
//! stock movements, the order flow (reserve / release / commit on order events, read from the
//! events' payloads), suppliers, purchase orders, transfers and reorder candidates
//! (docs/purchasing-and-transfers.md), with the stock alerts every quantity write raises, the
//! `table!`s of the context's tables (`schema`) and its table of constraint names ([`CONSTRAINTS`]).
//!
//! Depends on `postgres-toolkit` (connections, transactions, the outbox, the mapper of diesel errors),
//! its own domain crate, `shared-kernel` and `event-contracts`, never on another context's domain or
//! adapter crate (`make check-boundaries`). What it needs of another context comes through a port of its
//! domain crate that the api crate wires, or in an event's payload.

pub(crate) mod errors;
/// The request field each constraint of this context's tables guards (the schema guard checks they exist).
pub use errors::CONSTRAINTS;
mod document_stock;
mod documents;
mod ledger;
mod purchasing_rows;
mod rows;
pub mod schema;
mod sql;
mod stock_alerts;

pub mod inventory;
pub mod locations;
pub mod movements;
pub mod order_events;
pub mod order_stock;
pub mod products;
pub mod purchase_orders;
pub mod reorder;
pub mod reservation_batch;
pub mod suppliers;
pub mod transfers;

pub use inventory::PgInventoryRepository;
pub use locations::PgLocationRepository;
pub use movements::PgStockMovementRepository;
pub use order_events::OrderEventsHandler;
pub use order_stock::PgOrderStockRepository;
pub use products::PgProductRepository;
pub use purchase_orders::PgPurchaseOrderRepository;
pub use reorder::PgReorderRepository;
pub use suppliers::PgSupplierRepository;
pub use transfers::PgTransferRepository;
