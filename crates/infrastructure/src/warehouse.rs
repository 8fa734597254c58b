//! PostgreSQL adapters of warehouse management: products, locations, inventory with its ledger of
//! stock movements, and the order flow (reserve / release / commit on order events).

pub(crate) mod errors;
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
