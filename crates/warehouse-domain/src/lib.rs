//! Warehouse management domain: products, inventory quantities, stock movements, locations and the
//! planning of reservations for orders.
//!
//! Why a separate, pure crate: the stock arithmetic is the part of the warehouse that must never be
//! wrong, so it is written once here as plain functions, pinned by unit tests, and merely executed by
//! the adapters (as compare-and-set updates guarded by database CHECKs). Nothing here performs I/O or
//! reads the clock: callers pass a [`Stamp`] or `now`. How Tally runs these rules against PostgreSQL
//! and the order context is described in `docs/orders-and-warehouse.md`.
//!
//! # The aggregates
//!
//! - [`Product`]: a catalogue entry identified by its SKU; `active ⇄ discontinued`
//!   ([`Product::discontinue`], [`Product::activate`]); only active products are orderable.
//! - [`Location`]: where stock is kept; `active ⇄ inactive` ([`Location::deactivate`],
//!   [`Location::activate`]); inactive locations are skipped when reserving for orders.
//! - [`Inventory`]: the stock of one product at one location, three [`Quantities`] with the invariant
//!   `0 ≤ reserved ≤ on_hand`, `committed ≥ 0`; available = on hand − reserved.
//! - [`StockMovement`]: the append-only record of every quantity change, made only by the operations
//!   below and never changed afterwards.
//! - [`Supplier`] and [`PurchaseOrder`] ([`purchasing`]): stock bought and received, `draft → ordered
//!   → partially_received → received` (cancel, close short), each receipt one `Receipt` movement.
//! - [`Transfer`] ([`transfers`]): stock moved between locations as a document, `draft → in_transit →
//!   received` (cancel, putting in-transit stock back).
//!
//! Moving a product or location into the state it is already in is `INVALID_STATUS_TRANSITION`.
//!
//! # Stock alerts and reorder suggestions
//!
//! [`alerts`]: a record is low while available ≤ its reorder point (> 0); a write that makes it low
//! raises `warehouse.stock_low`, one that ends it `warehouse.stock_replenished` ([`stock_alert`]);
//! low records get a reorder suggestion (up to `max_stock`, or twice the reorder point, less what is
//! available and incoming) and `from-suggestions` one draft purchase order per supplier.
//!
//! # Inventory operations
//!
//! Each returns an [`InventoryChange`] (the new record, the quantities it was computed from, the
//! movement) or refuses; nothing is changed in place.
//!
//! | operation | on hand | reserved | committed | movement | refused with |
//! |---|---|---|---|---|---|
//! | [`Inventory::receive`] q | + q | | | Receipt | |
//! | [`Inventory::reserve`] q | | + q | | Reservation | `INSUFFICIENT_STOCK` when available < q |
//! | [`Inventory::release`] q | | − q | | ReservationRelease | `RESERVATION_EXCEEDED` when q > reserved |
//! | [`Inventory::commit`] q | − q | − q | + q | Commit | `RESERVATION_EXCEEDED` when q > reserved |
//! | [`Inventory::adjust`] δ | + δ | | | Adjustment | `INSUFFICIENT_STOCK` below reserved |
//! | [`Inventory::damage`] q | − q | | | Damage | `INSUFFICIENT_STOCK` below reserved |
//! | [`Inventory::return_stock`] q | + q | | | Return | |
//! | [`Inventory::transfer`] q | − q here, + q there | | | Transfer × 2 | `INSUFFICIENT_STOCK` below reserved |
//!
//! Every quantity must be > 0 (`INVALID_QUANTITY`); see [`operations`] for the details.
//!
//! # The order flow
//!
//! The warehouse answers the order context's events (`order.confirmed`, `order.cancelled`,
//! `order.fulfilled`). Per order, an [`order_hold`] state machine (`Reserved`, `Failed`, `Released`,
//! `Committed`) decides what each event does, whatever order they arrive in and however often:
//! a confirmation is planned once ([`plan_reservation`], all lines or none, most available stock
//! first) and applied with [`reserve_from`]; a cancellation releases and a fulfilment commits exactly
//! what the order holds ([`held_for_order`]). The replies are built in [`events`].
//!
//! # Use cases
//!
//! [`application`] holds every use case, one service per area ([`application::ProductService`],
//! [`application::LocationService`], [`application::InventoryService`],
//! [`application::StockOperations`], [`application::OrderStock`], [`application::SupplierService`],
//! [`application::PurchasingService`], [`application::TransferService`]), written against the ports
//! below and a clock. With the feature `memory`, [`memory`](crate#features) serves every port without
//! a database; `cargo run -p warehouse-domain --features memory --example stock_flow` runs a product
//! from creation to committed stock, `--example purchasing` buys it in, receives it short and moves
//! it to another location.
//!
//! # Ports
//!
//! [`ProductRepository`], [`LocationRepository`], [`InventoryRepository`],
//! [`StockMovementRepository`] (read-only), [`OrderStockRepository`] (the order flow),
//! [`SupplierRepository`], [`PurchaseOrderRepository`], [`purchasing::ReorderRepository`] and
//! [`TransferRepository`]. Adapters promise: one transaction per method; every quantity write a compare-and-set on the quantities read
//! (`Stale` when they moved: reload and run the operation again), with its movement in the same
//! transaction; stock never oversold (the database CHECK is the last line of defence); movements
//! never updated or deleted; soft-deleted rows invisible (`NotFound`). See [`repository`].
//!
//! # Features
//!
//! - `memory`: `memory::InMemoryWarehouse`, one in-memory store that serves every port (the ports
//!   share their tables: a location's stock, an order's movements, a receipt's records), for
//!   examples, tests and other services.
//! - `contract`: `contract`, the promises of each port as test functions every adapter runs.
//!
//! ```
//! use time::macros::datetime;
//! use uuid::Uuid;
//! use warehouse_domain::{
//!     Inventory, MovementType, NewInventory, Quantities, Receipt, Stamp, Thresholds, WarehouseError,
//! };
//!
//! let stamp = Stamp { at: datetime!(2026-03-01 10:00 UTC), by: Some(Uuid::from_u128(9)) };
//! let input = NewInventory {
//!     product_id: Uuid::from_u128(1),
//!     location_id: Uuid::from_u128(2),
//!     quantity_on_hand: Some(10),
//!     thresholds: Thresholds { reorder_point: Some(5), ..Thresholds::default() },
//! };
//! // A new record; its initial stock is recorded as a Receipt.
//! let (record, initial) = Inventory::create(input, stamp).expect("valid input");
//! assert_eq!(initial.expect("10 > 0").movement_type, MovementType::Receipt);
//!
//! // Receive 5 more: on hand 15.
//! let change = record.receive(Receipt::of(5), stamp).expect("a positive quantity");
//! assert_eq!(change.before, Quantities { on_hand: 10, reserved: 0, committed: 0 }); // the compare-and-set condition
//! let record = change.inventory; // after `InventoryRepository::apply(&change)` succeeded
//!
//! // Reserve 12 for an order: available drops to 3; asking for 4 more is refused, nothing changes.
//! let order_id = Uuid::from_u128(100);
//! let change = record.reserve(12, order_id, stamp).expect("15 available");
//! assert_eq!((change.movement.reserved_before, change.movement.reserved_after), (0, 12));
//! let record = change.inventory;
//! assert_eq!(record.quantity_available(), 3);
//! assert!(record.is_low_stock());
//! assert_eq!(record.reserve(4, order_id, stamp), Err(WarehouseError::InsufficientStock { requested: 4, available: 3 }));
//!
//! // The order is fulfilled: the reserved stock leaves the warehouse.
//! let record = record.commit(12, order_id, stamp).expect("12 reserved").inventory;
//! assert_eq!(record.quantities(), Quantities { on_hand: 3, reserved: 0, committed: 12 });
//! ```
//!
//! Reserving a confirmed order against the candidate records, all lines or none:
//!
//! ```
//! use time::macros::datetime;
//! use uuid::Uuid;
//! use warehouse_domain::order_hold::{decide, HoldDecision, HoldEvent, HoldStatus};
//! use warehouse_domain::{reserve_from, Inventory, NewInventory, Reservation, ReservationLine, Stamp, Thresholds};
//!
//! let stamp = Stamp { at: datetime!(2026-03-01 10:00 UTC), by: None };
//! let product_id = Uuid::from_u128(1);
//! let stocked = |location: u128, quantity| {
//!     let input = NewInventory {
//!         product_id,
//!         location_id: Uuid::from_u128(location),
//!         quantity_on_hand: Some(quantity),
//!         thresholds: Thresholds::default(),
//!     };
//!     Inventory::create(input, stamp).expect("valid").0
//! };
//! let mut records = vec![stocked(10, 4), stocked(11, 6)];
//!
//! // No hold yet for this order: plan the reservation.
//! assert_eq!(decide(None, HoldEvent::Reserve), HoldDecision::PlanReservation);
//! let order_id = Uuid::from_u128(100);
//! let line = ReservationLine { line_id: Uuid::from_u128(7), product_id, quantity: 8 };
//! let Reservation::Reserved { allocations, changes } = reserve_from(&mut records, order_id, &[line], stamp).expect("no bug")
//! else {
//!     panic!("10 units are available");
//! };
//! // The line spans both records, the fuller one first.
//! assert_eq!(allocations.iter().map(|a| a.quantity).sum::<i64>(), 8);
//! assert_eq!(changes.len(), 2);
//! assert_eq!(records.iter().map(|r| r.quantity_available()).sum::<i64>(), 2);
//!
//! // A second order for 3 is short and takes nothing.
//! let line = ReservationLine { line_id: Uuid::from_u128(8), product_id, quantity: 3 };
//! assert!(matches!(reserve_from(&mut records, Uuid::from_u128(101), &[line], stamp), Ok(Reservation::Short(_))));
//!
//! // A cancellation that overtook the confirmation: the late confirmation reserves nothing.
//! assert_eq!(decide(Some(HoldStatus::Released), HoldEvent::Reserve), HoldDecision::SkipReleased);
//! ```
//!
//! Error codes ([`WarehouseError`], [`RepoError`]): `INSUFFICIENT_STOCK` 409, `RESERVATION_EXCEEDED`
//! 409 (release/commit of more than is reserved), `INVALID_QUANTITY` 400 (not > 0 or out of range),
//! `VALIDATION_ERROR` 400 (with a field), `INVALID_STATUS_TRANSITION` 409, `NOT_FOUND` 404,
//! `STOCK_RESERVED` 409 (deleting an inventory record holding reservations), `LOCATION_HAS_STOCK` 409
//! (deleting a location with stock on hand), `PO_NOT_EDITABLE` 409, `PO_EMPTY` 409, `OVER_RECEIPT` 409,
//! `SUPPLIER_HAS_OPEN_ORDERS` 409, `INVALID_EMAIL` 400, `DOCUMENT_NUMBERS_EXHAUSTED` 409; from storage `ALREADY_EXISTS` 409, `CONFLICT` 409,
//! `SERVICE_UNAVAILABLE` 503, `INTERNAL_ERROR` 500.

#![deny(missing_docs)]

pub mod alerts;
pub mod application;
#[cfg(feature = "contract")]
pub mod contract;
pub mod error;
pub mod events;
pub mod inventory;
pub mod location;
#[cfg(feature = "memory")]
pub mod memory;
pub mod movement;
pub mod numbers;
pub mod operations;
pub mod order_hold;
pub mod planning;
pub mod product;
pub mod purchasing;
pub mod quantities;
pub mod repository;
pub mod reservation;
pub mod settlement;
pub mod transfers;

mod text;

pub use error::WarehouseError;
pub use inventory::{Inventory, InventoryRecord, NewInventory};
pub use location::{Address, CountryCode, Location, LocationInput, LocationRecord, LocationType, Utilization};
pub use movement::{held_for_order, MovementType, ReferenceType, StockMovement, StockMovementRecord};
pub use operations::{InventoryChange, Receipt, Stamp, TransferChange, WithIncoming};
pub use order_hold::{HoldDecision, HoldEvent, HoldStatus};
pub use planning::{
    plan_reservation, totals_by_inventory, Allocation, InventoryQuantity, ReservationLine, Shortage, StockLevel,
};
pub use product::{Product, ProductInput, ProductRecord, ProductSort, ProductStatus};
pub use quantities::{Quantities, Thresholds};
pub use repository::{
    Availability, Countries, Currencies, InventoryFilter, InventoryRepository, LocationFilter, LocationRepository,
    MovementFilter, OrderStockRepository, ProductFilter, ProductRepository, RecentLimit, RepoError, ReservationOutcome,
    SettleOutcome, StockMovementRepository,
};
pub use reservation::{answer_confirmation, reserve_from, ConfirmationAnswer, Reservation};
pub use settlement::{settle_held, Settlement};

pub use alerts::{stock_alert, AlertLevel, ReorderCandidate, ReorderSuggestion, StockAlertKind, StockCrossing};
pub use numbers::{PurchaseOrderNumber, TransferNumber};
pub use purchasing::{
    PurchaseOrder, PurchaseOrderChange, PurchaseOrderRepository, PurchaseOrderStatus, Supplier, SupplierRepository,
};
pub use transfers::{Transfer, TransferRepository, TransferStatus, TransferStatusChange};
