//! Warehouse management domain: products, inventory quantities, stock movements, locations and the
//! planning of reservations for orders.
//!
//! Why a separate, pure crate: the stock arithmetic is the part of the warehouse that must never be
//! wrong, so it is written once here as plain functions, pinned by unit tests, and merely executed by
//! the adapters (as compare-and-set updates guarded by database CHECKs). Nothing here performs I/O or
//! reads the clock: callers pass a [`Stamp`] or `now`.
//!
//! Error codes ([`WarehouseError`], [`RepoError`]): `INSUFFICIENT_STOCK` 409, `RESERVATION_EXCEEDED`
//! 409 (release/commit of more than is reserved), `INVALID_QUANTITY` 400 (not > 0 or out of range),
//! `VALIDATION_ERROR` 400 (with a field), `INVALID_STATUS_TRANSITION` 409, `NOT_FOUND` 404,
//! `STOCK_RESERVED` 409 (deleting an inventory record holding reservations), `LOCATION_HAS_STOCK` 409
//! (deleting a location with stock on hand); from storage `ALREADY_EXISTS` 409, `CONFLICT` 409,
//! `SERVICE_UNAVAILABLE` 503, `INTERNAL_ERROR` 500.

pub mod error;
pub mod events;
pub mod inventory;
pub mod location;
pub mod movement;
pub mod operations;
pub mod order_hold;
pub mod planning;
pub mod product;
pub mod quantities;
pub mod repository;
pub mod reservation;

mod text;

pub use error::WarehouseError;
pub use inventory::{Inventory, InventoryRecord, NewInventory};
pub use location::{Address, CountryCode, Location, LocationInput, LocationRecord, LocationType, Utilization};
pub use movement::{held_for_order, MovementType, ReferenceType, StockMovement, StockMovementRecord};
pub use operations::{InventoryChange, Receipt, Stamp, TransferChange};
pub use order_hold::{HoldDecision, HoldEvent, HoldStatus};
pub use planning::{
    plan_reservation, totals_by_inventory, Allocation, InventoryQuantity, ReservationLine, Shortage, StockLevel,
};
pub use product::{Product, ProductInput, ProductRecord, ProductSort, ProductStatus};
pub use quantities::{Quantities, Thresholds};
pub use repository::{
    Availability, InventoryFilter, InventoryRepository, LocationFilter, LocationRepository, MovementFilter,
    OrderStockRepository, ProductFilter, ProductRepository, RecentLimit, RepoError, ReservationOutcome, SettleOutcome,
    StockMovementRepository,
};
pub use reservation::{reserve_from, Reservation};
