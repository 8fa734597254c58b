//! Purchase orders and reorder candidates in memory.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest, StorageError};
use uuid::Uuid;

use super::batch::{commit, StockBatch};
use super::{page_of, InMemoryWarehouse, State, Stored};
use crate::alerts::{is_low, suggest, ReorderCandidate};
use crate::error::WarehouseError;
use crate::numbers::PurchaseOrderNumber;
use crate::operations::Stamp;
use crate::purchasing::{
    PurchaseOrder, PurchaseOrderChange, PurchaseOrderDraft, PurchaseOrderFilter, PurchaseOrderRepository,
    ReorderRepository, SuggestionFilter,
};
use crate::repository::RepoError;
use crate::transfers::TransferStatus;

/// The sequence the next document of `kind` in `year` gets (taken when the create succeeds).
pub(super) fn next_sequence(state: &State, kind: &'static str, year: i32) -> u32 {
    state.counters.get(&(kind, year)).copied().unwrap_or(0).saturating_add(1)
}

/// Units of `product_id` on their way to `location_id` (any location when `None`): what open
/// purchase orders still expect plus what transfers in transit bring.
pub(super) fn incoming(state: &State, product_id: Uuid, location_id: Option<Uuid>) -> i64 {
    let ordered = state
        .purchase_orders
        .values()
        .filter(|po| location_id.is_none_or(|l| po.location_id == l))
        .fold(0i64, |sum, po| sum.saturating_add(po.incoming(product_id)));
    state
        .transfers
        .values()
        .filter(|t| t.status == TransferStatus::InTransit)
        .fold(ordered, |sum, t| sum.saturating_add(t.incoming(product_id, location_id.unwrap_or(t.to_location_id))))
}

/// A purchase order for a live supplier, numbered (the counter taken only on success).
fn numbered(state: &mut State, draft: PurchaseOrderDraft) -> Result<PurchaseOrder, RepoError> {
    let supplier_id = draft.supplier_id();
    if state.suppliers.get(&supplier_id).and_then(Stored::live).is_none() {
        return Err(WarehouseError::NotFound { entity: "supplier" }.into());
    }
    let year = draft.year();
    let sequence = next_sequence(state, "PO", year);
    let number = PurchaseOrderNumber::new(year, sequence)?;
    let po = draft.into_purchase_order(number)?;
    state.counters.insert(("PO", year), sequence);
    state.purchase_orders.insert(po.id, po.clone());
    Ok(po)
}

fn matches(filter: &PurchaseOrderFilter, po: &PurchaseOrder) -> bool {
    let day = po.created_at.date();
    filter.status.is_none_or(|s| po.status == s)
        && filter.supplier_id.is_none_or(|id| po.supplier_id == id)
        && filter.location_id.is_none_or(|id| po.location_id == id)
        && filter.date_from.is_none_or(|from| day >= from)
        && filter.date_to.is_none_or(|to| day <= to)
}

#[async_trait]
impl PurchaseOrderRepository for InMemoryWarehouse {
    async fn create(&self, draft: PurchaseOrderDraft) -> Result<PurchaseOrder, RepoError> {
        numbered(&mut self.lock(), draft)
    }

    async fn create_all(&self, drafts: Vec<PurchaseOrderDraft>) -> Result<Vec<PurchaseOrder>, RepoError> {
        let mut state = self.lock();
        // On a failure the store is put back as it was: all or none.
        let (counters, orders) = (state.counters.clone(), state.purchase_orders.clone());
        let created: Result<Vec<_>, _> = drafts.into_iter().map(|draft| numbered(&mut state, draft)).collect();
        if created.is_err() {
            state.counters = counters;
            state.purchase_orders = orders;
        }
        created
    }

    async fn get(&self, id: Uuid) -> Result<PurchaseOrder, RepoError> {
        self.lock().purchase_orders.get(&id).cloned().ok_or(StorageError::NotFound.into())
    }

    async fn get_by_number(&self, number: &PurchaseOrderNumber) -> Result<PurchaseOrder, RepoError> {
        let state = self.lock();
        let found = state.purchase_orders.values().find(|po| po.po_number == *number);
        found.cloned().ok_or(StorageError::NotFound.into())
    }

    async fn list(&self, filter: &PurchaseOrderFilter, page: PageRequest) -> Result<Page<PurchaseOrder>, RepoError> {
        let state = self.lock();
        let mut orders: Vec<PurchaseOrder> =
            state.purchase_orders.values().filter(|po| matches(filter, po)).cloned().collect();
        orders.sort_by_key(|po| std::cmp::Reverse((po.created_at, po.id)));
        Ok(page_of(orders, page))
    }

    async fn save(&self, change: &PurchaseOrderChange, by: Option<Uuid>) -> Result<(), RepoError> {
        let mut state = self.lock();
        let next = &change.purchase_order;
        let stored = state.purchase_orders.get(&next.id).ok_or(StorageError::NotFound)?;
        if stored.version != change.expected_version || stored.status != change.expected_status {
            return Err(StorageError::Stale.into());
        }
        let stamp = Stamp { at: next.updated_at, by };
        let mut batch = StockBatch::new(&state, stamp);
        for receipt in &change.receipts {
            // The line's conditional update: as read, and never above what was ordered.
            let line = stored.line(receipt.line_id).ok_or(StorageError::Stale)?;
            if line.quantity_received != receipt.received_before || receipt.received_after() > line.quantity_ordered {
                return Err(StorageError::Stale.into());
            }
            let record = batch.record(receipt.product_id, receipt.location_id, true)?;
            let record = record.ok_or(StorageError::Unknown("a made record".into()))?;
            batch.push(record.receive(receipt.receipt(), stamp)?);
        }
        let (created, changes) = batch.finish();
        state.purchase_orders.insert(next.id, next.clone());
        state.events.extend(change.events.iter().cloned());
        commit(&mut state, created, &changes);
        Ok(())
    }
}

#[async_trait]
impl ReorderRepository for InMemoryWarehouse {
    async fn candidates(&self, filter: &SuggestionFilter) -> Result<Vec<ReorderCandidate>, RepoError> {
        let state = self.lock();
        let mut candidates: Vec<ReorderCandidate> = state
            .inventory
            .values()
            .filter_map(Stored::live)
            .filter(|r| filter.location_id.is_none_or(|l| r.location_id == l))
            .filter(|r| is_low(r.quantity_on_hand.saturating_sub(r.quantity_reserved), r.reorder_point))
            .filter_map(|r| {
                let product = state.products.get(&r.product_id).and_then(Stored::live)?;
                // The product's own preferred supplier, else one set with `set_preferred_supplier`.
                let supplier_id = product.supplier_id.or_else(|| state.preferred_suppliers.get(&r.product_id).copied());
                filter.supplier_id.is_none_or(|s| supplier_id == Some(s)).then(|| ReorderCandidate {
                    inventory_id: r.id,
                    product_id: r.product_id,
                    sku: product.sku.clone(),
                    location_id: r.location_id,
                    supplier_id,
                    quantity_available: r.quantity_on_hand.saturating_sub(r.quantity_reserved),
                    quantity_incoming: incoming(&state, r.product_id, Some(r.location_id)),
                    reorder_point: r.reorder_point,
                    max_stock: r.max_stock,
                })
            })
            .collect();
        candidates.sort_by_cached_key(|c| (c.sku.to_lowercase(), c.location_id));
        Ok(candidates)
    }

    async fn suggestions(
        &self,
        filter: &SuggestionFilter,
        page: PageRequest,
    ) -> Result<Page<ReorderCandidate>, RepoError> {
        let mut candidates = self.candidates(filter).await?;
        candidates.retain(|c| suggest(c).is_some());
        Ok(page_of(candidates, page))
    }
}
