//! The storage ports of purchasing: suppliers, purchase orders and the reorder candidates.
//!
//! Contract for adapters (as for every warehouse port, [`crate::repository`]): each method is one
//! transaction; every write of an existing row is conditional (a compare-and-set on the version and
//! status it was computed from, `Stale` when another writer won: reload and run the operation
//! again); events go to the outbox in the transaction of their change; soft-deleted rows are
//! invisible (`NotFound`). What the database itself must guard:
//! * numbers unique under any number of concurrent creators: allocated from a counter row per kind
//!   and year inside the create transaction (never `max()+1`), plus a unique index on the number;
//! * `0 ≤ quantity_received ≤ quantity_ordered` and `quantity_ordered > 0` on every line, `unit_cost
//!   ≥ 0` (CHECKs), and the receipt's conditional line update, so that two receipts racing on the
//!   same purchase order can never receive more than was ordered even if one skipped the version
//!   check;
//! * inventory quantities never negative (the inventory CHECKs), every receipt's movement in the
//!   transaction of its quantity change.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest};
use time::{Date, OffsetDateTime};
use uuid::Uuid;

use super::change::PurchaseOrderChange;
use super::order::{PurchaseOrder, PurchaseOrderDraft};
use super::status::PurchaseOrderStatus;
use super::supplier::Supplier;
use crate::alerts::ReorderCandidate;
use crate::error::WarehouseError;
use crate::numbers::PurchaseOrderNumber;
use crate::repository::RepoError;

/// `GET /suppliers`: `search` matches the name or email, case-insensitively, wildcards literal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SupplierFilter {
    /// Text to find in the name or email.
    pub search: Option<String>,
    /// Only active (`true`) or inactive (`false`) suppliers.
    pub is_active: Option<bool>,
}

/// `GET /purchase-orders`; dates are the creation date (UTC), both ends inclusive.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PurchaseOrderFilter {
    /// Only purchase orders in this status.
    pub status: Option<PurchaseOrderStatus>,
    /// Only this supplier's.
    pub supplier_id: Option<Uuid>,
    /// Only those delivering to this location.
    pub location_id: Option<Uuid>,
    /// Created on or after this day.
    pub date_from: Option<Date>,
    /// Created on or before this day.
    pub date_to: Option<Date>,
}

impl PurchaseOrderFilter {
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

/// `GET /reorder-suggestions` and `POST /purchase-orders/from-suggestions`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SuggestionFilter {
    /// Only records at this location (required by `from-suggestions`).
    pub location_id: Option<Uuid>,
    /// Only products whose preferred supplier is this one.
    pub supplier_id: Option<Uuid>,
}

/// Where suppliers are kept.
#[async_trait]
pub trait SupplierRepository: Send + Sync {
    /// Inserts a new supplier.
    async fn create(&self, supplier: &Supplier) -> Result<(), RepoError>;
    /// The live supplier; `NotFound` when there is none or it was deleted.
    async fn get(&self, id: Uuid) -> Result<Supplier, RepoError>;
    /// The live suppliers among `ids`, in one read (missing or deleted ones are simply absent).
    async fn get_many(&self, ids: &[Uuid]) -> Result<Vec<Supplier>, RepoError>;
    /// One page of the live suppliers matching `filter`, newest first; `total` counts every match.
    async fn list(&self, filter: &SupplierFilter, page: PageRequest) -> Result<Page<Supplier>, RepoError>;
    /// Writes every field `WHERE id = … AND version = expected_version AND deleted_at IS NULL`;
    /// `Stale` when it moved, `NotFound` when it is gone.
    async fn update(&self, supplier: &Supplier, expected_version: i64) -> Result<(), RepoError>;
    /// Soft delete `WHERE NOT EXISTS` an open purchase order of the supplier
    /// ([`PurchaseOrderStatus::is_open`]), in one statement so that a purchase order created at the
    /// same time cannot slip past it (the purchase order's insert locks the supplier row `FOR SHARE`,
    /// or checks `deleted_at IS NULL` under the same lock); `Refused(SupplierHasOpenOrders)`
    /// otherwise, `NotFound` when already gone.
    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError>;
}

/// Where purchase orders are kept.
#[async_trait]
pub trait PurchaseOrderRepository: Send + Sync {
    /// In one transaction: lock the draft's supplier row `FOR SHARE` (so a concurrent
    /// [`SupplierRepository::delete`] either waits and then sees this open purchase order, or went
    /// first and this create answers `Refused(NotFound { entity: "supplier" })`), allocate the next
    /// sequence of `draft.year()` from the purchase orders' counter, build the purchase order with
    /// [`PurchaseOrderDraft::into_purchase_order`], insert it with its lines. Returns the stored
    /// purchase order. Concurrent creators never get one number.
    async fn create(&self, draft: PurchaseOrderDraft) -> Result<PurchaseOrder, RepoError>;
    /// [`PurchaseOrderRepository::create`] for several drafts in one transaction, all or none
    /// (`from-suggestions`: one per supplier), numbered in the order given.
    async fn create_all(&self, drafts: Vec<PurchaseOrderDraft>) -> Result<Vec<PurchaseOrder>, RepoError>;
    /// The purchase order with its lines (by `created_at`, then `id`); `NotFound` when there is none.
    async fn get(&self, id: Uuid) -> Result<PurchaseOrder, RepoError>;
    /// The purchase order with this number, as [`PurchaseOrderRepository::get`].
    async fn get_by_number(&self, number: &PurchaseOrderNumber) -> Result<PurchaseOrder, RepoError>;
    /// Newest first; `total` counts every match.
    async fn list(&self, filter: &PurchaseOrderFilter, page: PageRequest) -> Result<Page<PurchaseOrder>, RepoError>;
    /// Writes a change in one transaction, as [`super::change`] describes: the compare-and-set on
    /// `expected_version`/`expected_status` (`Stale`), the line row, each receipt (the line's
    /// conditional update, `Stale` when it matches no row; the inventory record made if missing, its
    /// `Receipt` movement stamped `change.purchase_order.updated_at` and `by`, the stock alert if the
    /// receipt replenished it), the events. Any failure rolls back everything: a receipt is received
    /// entirely or not at all.
    async fn save(&self, change: &PurchaseOrderChange, by: Option<Uuid>) -> Result<(), RepoError>;
}

/// What reorder suggestions are computed from.
#[async_trait]
pub trait ReorderRepository: Send + Sync {
    /// The live inventory records matching `filter` that are low ([`crate::alerts::is_low`]), each
    /// with its product's SKU and preferred supplier and its `quantity_incoming` (what open purchase
    /// orders, [`PurchaseOrderStatus::expects_stock`], still expect there, plus transfers in transit
    /// to it); by product SKU (case-insensitively), then location. [`crate::alerts::suggest`] turns
    /// each into a suggestion.
    async fn candidates(&self, filter: &SuggestionFilter) -> Result<Vec<ReorderCandidate>, RepoError>;
    /// One page of the [`Self::candidates`] that need ordering (a suggested quantity above zero,
    /// [`crate::alerts::suggested_quantity`]), in the same order; `total` counts every one of them.
    async fn suggestions(
        &self,
        filter: &SuggestionFilter,
        page: PageRequest,
    ) -> Result<Page<ReorderCandidate>, RepoError>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn ports_are_object_safe() {
        fn takes(
            _: Option<&dyn SupplierRepository>,
            _: Option<&dyn PurchaseOrderRepository>,
            _: Option<&dyn ReorderRepository>,
        ) {
        }
        takes(None, None, None);
    }

    #[test]
    fn filter_dates_are_ordered() {
        let mut filter =
            PurchaseOrderFilter { date_from: Some(date!(2026 - 01 - 02)), ..PurchaseOrderFilter::default() };
        assert_eq!(filter.validate(), Ok(()));
        filter.date_to = Some(date!(2026 - 01 - 02));
        assert_eq!(filter.validate(), Ok(()), "inclusive, same day");
        filter.date_to = Some(date!(2026 - 01 - 01));
        assert_eq!(filter.validate().map_err(|e| e.field()), Err(Some("date_from")));
    }
}
