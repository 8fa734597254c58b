//! The storage ports of the warehouse context.
//!
//! Contract for adapters: each method is one transaction; quantity changes are compare-and-set
//! updates (see [`crate::operations`]) and append their movements in the same transaction; events go
//! to the outbox in that transaction too. Soft-deleted rows are invisible (`NotFound`) and free their
//! unique keys. Stock movements are append-only: no port can update or delete one.

use async_trait::async_trait;
use serde::Serialize;
use shared_kernel::error::{Classified, ErrorKind};
use shared_kernel::{CurrencyCode, Page, PageRequest, StorageError};
use time::{Date, OffsetDateTime};
use uuid::Uuid;

use crate::error::WarehouseError;
use crate::inventory::Inventory;
use crate::location::{CountryCode, Location, LocationType};
use crate::movement::{MovementType, StockMovement};
use crate::operations::{InventoryChange, Stamp, TransferChange, WithIncoming};
use crate::planning::{Allocation, InventoryQuantity, ReservationLine, Shortage};
use crate::product::{Product, ProductSort, ProductStatus};
use crate::quantities::Quantities;

/// A warehouse port's failure: the shared storage error, or a business
/// refusal that a conditional statement found (`STOCK_RESERVED`,
/// `LOCATION_HAS_STOCK`, `INSUFFICIENT_STOCK` from the last-line `CHECK`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RepoError {
    /// The storage failed or refused (`NotFound`, `Conflict` on a unique key, `Stale` after a lost
    /// compare-and-set, unavailable, ...).
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// A business rule checked in the write's condition refused it; nothing was written.
    #[error(transparent)]
    Refused(#[from] WarehouseError),
}

impl Classified for RepoError {
    fn kind(&self) -> ErrorKind {
        match self {
            Self::Storage(e) => e.kind(),
            Self::Refused(e) => e.kind(),
        }
    }

    fn code(&self) -> &'static str {
        match self {
            Self::Storage(e) => e.code(),
            Self::Refused(e) => e.code(),
        }
    }
}

/// `GET /products`: `search` matches sku or name, case-insensitively, wildcards literal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProductFilter {
    /// Only products in this status.
    pub status: Option<ProductStatus>,
    /// Only products of this category.
    pub category: Option<String>,
    /// Only products of this brand.
    pub brand: Option<String>,
    /// Text to find in the SKU or name.
    pub search: Option<String>,
    /// The order of the page.
    pub sort: ProductSort,
}

/// `GET /inventory`; `low_stock` keeps only records with available ≤ reorder point.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InventoryFilter {
    /// Only this product's records.
    pub product_id: Option<Uuid>,
    /// Only the records at this location.
    pub location_id: Option<Uuid>,
    /// Only records at or below their reorder point ([`Inventory::is_low_stock`]).
    pub low_stock: bool,
}

/// `GET /stock-movements`; dates are the creation date (UTC), inclusive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MovementFilter {
    /// Only movements of this type.
    pub movement_type: Option<MovementType>,
    /// Only movements of this inventory record.
    pub inventory_id: Option<Uuid>,
    /// Only movements of this product.
    pub product_id: Option<Uuid>,
    /// Only movements at this location.
    pub location_id: Option<Uuid>,
    /// Only movements caused by this order, purchase order or transfer.
    pub reference_id: Option<Uuid>,
    /// Only movements made on or after this day (UTC).
    pub date_from: Option<Date>,
    /// Only movements made on or before this day (UTC).
    pub date_to: Option<Date>,
}

impl MovementFilter {
    /// `date_from` after `date_to` is `VALIDATION_ERROR` on `date_from`.
    pub fn validate(&self) -> Result<(), WarehouseError> {
        match (self.date_from, self.date_to) {
            (Some(from), Some(to)) if from > to => {
                Err(WarehouseError::Validation { field: "date_from", message: "must not be after date_to" })
            }
            _ => Ok(()),
        }
    }
}

/// `GET /locations`; `search` matches code or name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LocationFilter {
    /// Only locations of this type.
    pub location_type: Option<LocationType>,
    /// Only locations in this country.
    pub country: Option<CountryCode>,
    /// Only active (`true`) or inactive (`false`) locations.
    pub is_active: Option<bool>,
    /// Text to find in the code or name.
    pub search: Option<String>,
}

/// `GET /stock-movements/recent?limit=`: 1..=100, default 50.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecentLimit(u32);

impl RecentLimit {
    /// The limit when none is given.
    pub const DEFAULT: u32 = 50;
    /// The largest limit accepted.
    pub const MAX: u32 = 100;

    /// [`Self::DEFAULT`] when absent; outside 1..=[`Self::MAX`] is `VALIDATION_ERROR` on `limit`.
    pub fn new(limit: Option<i64>) -> Result<Self, WarehouseError> {
        match limit {
            None => Ok(Self(Self::DEFAULT)),
            Some(n) if (1..=i64::from(Self::MAX)).contains(&n) => Ok(Self(n as u32)),
            Some(_) => Err(WarehouseError::Validation { field: "limit", message: "must be between 1 and 100" }),
        }
    }

    /// The number of movements to return.
    pub fn get(self) -> u32 {
        self.0
    }
}

/// `GET /products/:id/availability`: sums over the product's (non-deleted) records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Availability {
    /// The product.
    pub product_id: Uuid,
    /// Σ on hand over its records.
    pub quantity_on_hand: i64,
    /// Σ reserved over its records.
    pub quantity_reserved: i64,
    /// Σ on hand − Σ reserved: what new orders may still reserve.
    pub quantity_available: i64,
    /// Σ committed over its records.
    pub quantity_committed: i64,
    /// What open purchase orders (`ordered`, `partially_received`) still expect of it and what
    /// transfers in transit bring, at any location, whether or not that location has a record yet.
    /// 0 from [`Availability::new`]; set with [`Availability::with_incoming`].
    pub quantity_incoming: i64,
}

impl Availability {
    /// The availability of `product_id` from its summed quantities.
    pub fn new(product_id: Uuid, totals: Quantities) -> Self {
        Self {
            product_id,
            quantity_on_hand: totals.on_hand,
            quantity_reserved: totals.reserved,
            quantity_available: totals.available(),
            quantity_committed: totals.committed,
            quantity_incoming: 0,
        }
    }

    /// The same availability with `quantity_incoming` units on their way.
    pub fn with_incoming(self, quantity_incoming: i64) -> Self {
        Self { quantity_incoming, ..self }
    }
}

/// Where products are kept. Each method is one transaction; deleted products answer `NotFound` and
/// free their SKU.
#[async_trait]
pub trait ProductRepository: Send + Sync {
    /// `Storage(Conflict { field: "sku" })` when the SKU is taken (case-insensitively).
    async fn create(&self, product: &Product) -> Result<(), RepoError>;
    /// The product; `NotFound` when there is none or it was deleted.
    async fn get(&self, id: Uuid) -> Result<Product, RepoError>;
    /// The live products among `ids`, in one query (missing ones are simply absent).
    async fn get_many(&self, ids: &[Uuid]) -> Result<Vec<Product>, RepoError>;
    /// Case-insensitive.
    async fn get_by_sku(&self, sku: &str) -> Result<Product, RepoError>;
    /// One page of the live products matching `filter`, in `filter.sort` order; `total` counts every
    /// match.
    async fn list(&self, filter: &ProductFilter, page: PageRequest) -> Result<Page<Product>, RepoError>;
    /// Writes the editable fields (`PUT`): `Storage(Conflict { field: "sku" })`, `NotFound`.
    async fn update(&self, product: &Product) -> Result<(), RepoError>;
    /// Writes `status`/`updated_at` `WHERE id = … AND status = expected`; `Stale` otherwise.
    async fn change_status(&self, product: &Product, expected: ProductStatus) -> Result<(), RepoError>;
    /// Soft delete; `NotFound` when already gone.
    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError>;
    /// Distinct non-empty categories of non-deleted products, sorted.
    async fn categories(&self) -> Result<Vec<String>, RepoError>;
    /// Distinct non-empty brands of non-deleted products, sorted.
    async fn brands(&self) -> Result<Vec<String>, RepoError>;
}

/// Where inventory records are kept. An adapter must never let a record break `0 ≤ reserved ≤
/// on_hand`: every quantity write is a compare-and-set on the quantities it was computed from, in one
/// transaction with its movement, so stock is never oversold and no movement is lost or changed.
#[async_trait]
pub trait InventoryRepository: Send + Sync {
    /// Inserts the record and its initial Receipt, if any; `Storage(Conflict { field: "location_id" })` when the product
    /// already has a record at that location. Answers the record's incoming stock (as [`Self::incoming`]),
    /// read in the same transaction.
    async fn create(&self, inventory: &Inventory, initial: Option<&StockMovement>) -> Result<i64, RepoError>;
    /// The record; `NotFound` when there is none or it was deleted.
    async fn get(&self, id: Uuid) -> Result<Inventory, RepoError>;
    /// The live record of this product at this location, if any (e.g. a transfer's destination).
    async fn find(&self, product_id: Uuid, location_id: Uuid) -> Result<Option<Inventory>, RepoError>;
    /// One page of the live records matching `filter`; `total` counts every match.
    async fn list(&self, filter: &InventoryFilter, page: PageRequest) -> Result<Page<Inventory>, RepoError>;
    /// Writes the thresholds only (never the quantities); `NotFound` when gone. Answers the record as
    /// it now is (with quantities changed meanwhile) and its incoming stock, from the same transaction.
    async fn update_thresholds(&self, inventory: &Inventory) -> Result<WithIncoming<Inventory>, RepoError>;
    /// Compare-and-set on `change.before`, plus the movement; `Stale` when the quantities moved.
    /// Answers the record's incoming stock, read in the same transaction.
    async fn apply(&self, change: &InventoryChange) -> Result<i64, RepoError>;
    /// Both ends in one transaction, rows touched in id order; the destination record is inserted
    /// `ON CONFLICT DO NOTHING` first (it may be new). Answers the incoming stock of the source and
    /// of the destination, read in the same transaction.
    async fn apply_transfer(&self, change: &TransferChange) -> Result<[i64; 2], RepoError>;
    /// Soft delete `WHERE quantity_reserved = 0`; `Refused(StockReserved)` otherwise.
    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError>;
    /// The product's quantities summed over its live records, with its `quantity_incoming` (an
    /// adapter that does not keep purchase orders and transfers answers 0).
    async fn availability(&self, product_id: Uuid) -> Result<Availability, RepoError>;
    /// The `quantity_incoming` of each (product, location) of `records`, in their order: what open
    /// purchase orders still expect there and what transfers in transit bring there, in one read
    /// for any number of records. An adapter that does not keep purchase orders and transfers
    /// answers 0 for each.
    async fn incoming(&self, records: &[(Uuid, Uuid)]) -> Result<Vec<i64>, RepoError> {
        Ok(vec![0; records.len()])
    }
}

/// Result of handling `order.confirmed`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReservationOutcome {
    /// Reserved; `warehouse.stock_reserved` was written to the outbox.
    Reserved(Vec<Allocation>),
    /// Nothing reserved; `warehouse.reservation_failed` was written to the outbox.
    Failed(Vec<Shortage>),
    /// The order was released (cancelled) before this arrived: nothing is reserved, nothing sent.
    AlreadyReleased,
    /// This event was handled before (inbox): nothing changed.
    AlreadyHandled,
}

/// Result of handling `order.cancelled` / `order.fulfilled`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SettleOutcome {
    /// What was released / committed per record (possibly nothing); the reply event was written.
    Settled(Vec<InventoryQuantity>),
    /// This event was handled before (inbox): nothing changed.
    AlreadyHandled,
}

/// The order flow's storage. Each method is one transaction that locks the order's hold and lets
/// the domain decide with what it locked, then writes exactly what the decision says (quantity
/// changes with their movements, the hold's new status, the reply event). An adapter bound to an
/// event delivery (the inbox) answers `AlreadyHandled` for a redelivery; an adapter may serve
/// reservations that arrive together in one transaction, with the decisions one transaction each
/// would make.
#[async_trait]
pub trait OrderStockRepository: Send + Sync {
    /// Locks the order's hold and the candidate records (live records of the lines' products at
    /// live active locations, id order) and writes what [`crate::answer_confirmation`] answers:
    /// the Reservations (reference = the order), the hold `reserved` or `failed`, and
    /// `stock_reserved` or `reservation_failed`. Returns `AlreadyReleased` when the order's stock was
    /// already released (a cancel that overtook the confirm), so nothing stays reserved.
    async fn reserve_for_order(
        &self,
        order_id: Uuid,
        lines: &[ReservationLine],
        stamp: Stamp,
    ) -> Result<ReservationOutcome, RepoError>;

    /// Locks the order's hold; when [`crate::order_hold::decide`] settles, stores `released`
    /// (so a late reservation reserves nothing), locks the records the order holds stock on
    /// ([`crate::held_for_order`]) and writes what [`crate::settle_held`] decides: the
    /// ReservationReleases and `stock_released`.
    async fn release_for_order(&self, order_id: Uuid, stamp: Stamp) -> Result<SettleOutcome, RepoError>;

    /// As [`Self::release_for_order`] for a fulfilment: the hold `committed` (a released one stays
    /// released), the Commits and `stock_committed`.
    async fn commit_for_order(&self, order_id: Uuid, stamp: Stamp) -> Result<SettleOutcome, RepoError>;
}

/// Reading stock movements. Read-only: movements are written only together with their quantity
/// change, and never updated or deleted.
#[async_trait]
pub trait StockMovementRepository: Send + Sync {
    /// The movement; `NotFound` when there is none.
    async fn get(&self, id: Uuid) -> Result<StockMovement, RepoError>;
    /// One page of the movements matching `filter`, newest first; `total` counts every match.
    async fn list(&self, filter: &MovementFilter, page: PageRequest) -> Result<Page<StockMovement>, RepoError>;
    /// The newest `limit` movements.
    async fn recent(&self, limit: RecentLimit) -> Result<Vec<StockMovement>, RepoError>;
}

/// Where locations are kept. Each method is one transaction; deleted locations answer `NotFound` and
/// free their code.
#[async_trait]
pub trait LocationRepository: Send + Sync {
    /// `Storage(Conflict { field: "code" })` when the code is taken (case-insensitively).
    async fn create(&self, location: &Location) -> Result<(), RepoError>;
    /// The location; `NotFound` when there is none or it was deleted.
    async fn get(&self, id: Uuid) -> Result<Location, RepoError>;
    /// The live location with this code (case-insensitive); `NotFound` otherwise.
    async fn get_by_code(&self, code: &str) -> Result<Location, RepoError>;
    /// One page of the live locations matching `filter`; `total` counts every match.
    async fn list(&self, filter: &LocationFilter, page: PageRequest) -> Result<Page<Location>, RepoError>;
    /// Writes the editable fields (`PUT`): `Storage(Conflict { field: "code" })`, `NotFound`.
    async fn update(&self, location: &Location) -> Result<(), RepoError>;
    /// Writes `is_active`/`updated_at` `WHERE id = … AND is_active = expected`; `Stale` otherwise.
    async fn change_active(&self, location: &Location, expected: bool) -> Result<(), RepoError>;
    /// Soft delete unless any record there has stock on hand: `Refused(LocationHasStock)`.
    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError>;
    /// Σ on hand over the location's records (for [`Location::utilization`]).
    async fn quantity_on_hand(&self, id: Uuid) -> Result<i64, RepoError>;
}

/// The currencies of the reference data, as the operator keeps them (a port of the reference data,
/// implemented in the api): a product's price and a receipt's cost are in an active one.
#[async_trait]
pub trait Currencies: Send + Sync {
    /// Whether `code` is a currency the reference data lists and marks active.
    async fn is_active(&self, code: CurrencyCode) -> Result<bool, StorageError>;
}

/// The countries of the reference data (a port of the reference data, implemented in the api): a
/// location is in one of them.
#[async_trait]
pub trait Countries: Send + Sync {
    /// Whether `code` is a country the reference data lists.
    async fn exists(&self, code: CountryCode) -> Result<bool, StorageError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn ports_are_object_safe() {
        fn takes(
            _: Option<&dyn ProductRepository>,
            _: Option<&dyn InventoryRepository>,
            _: Option<&dyn OrderStockRepository>,
            _: Option<&dyn StockMovementRepository>,
            _: Option<&dyn LocationRepository>,
        ) {
        }
        takes(None, None, None, None, None);
    }

    #[test]
    fn codes() {
        let cases = [
            (RepoError::Storage(StorageError::NotFound), "NOT_FOUND", ErrorKind::NotFound),
            (RepoError::Storage(StorageError::Conflict { field: "sku" }), "ALREADY_EXISTS", ErrorKind::Conflict),
            (RepoError::Storage(StorageError::Stale), "CONFLICT", ErrorKind::Conflict),
            (RepoError::Refused(WarehouseError::StockReserved), "STOCK_RESERVED", ErrorKind::Conflict),
            (RepoError::from(WarehouseError::LocationHasStock), "LOCATION_HAS_STOCK", ErrorKind::Conflict),
            (
                RepoError::Storage(StorageError::Unavailable("down".into())),
                "SERVICE_UNAVAILABLE",
                ErrorKind::Unavailable,
            ),
            (RepoError::Storage(StorageError::Unknown("bug".into())), "INTERNAL_ERROR", ErrorKind::Internal),
        ];
        for (error, code, kind) in cases {
            assert_eq!((error.code(), error.kind()), (code, kind));
        }
    }

    #[test]
    fn recent_limit_bounds() {
        assert_eq!(RecentLimit::new(None).map(RecentLimit::get), Ok(50));
        assert_eq!(RecentLimit::new(Some(1)).map(RecentLimit::get), Ok(1));
        assert_eq!(RecentLimit::new(Some(100)).map(RecentLimit::get), Ok(100));
        for bad in [0, -1, 101] {
            assert_eq!(RecentLimit::new(Some(bad)).map_err(|e| e.field()), Err(Some("limit")));
        }
    }

    #[test]
    fn movement_filter_dates() {
        let filter = MovementFilter {
            date_from: Some(date!(2026 - 03 - 02)),
            date_to: Some(date!(2026 - 03 - 01)),
            ..MovementFilter::default()
        };
        assert_eq!(filter.validate().map_err(|e| e.field()), Err(Some("date_from")));
        assert_eq!(MovementFilter::default().validate(), Ok(()));
    }

    #[test]
    fn availability_derives_available() {
        let a = Availability::new(Uuid::nil(), Quantities { on_hand: 9, reserved: 4, committed: 2 });
        assert_eq!((a.quantity_available, a.quantity_committed), (5, 2));
    }
}
