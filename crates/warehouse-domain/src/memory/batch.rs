//! Stock changes a document writes in one transaction (a receipt's lines, a transfer's lines), and
//! the stock alerts every quantity write raises.
//!
//! A [`StockBatch`] reads each record as the batch has left it so far (two lines of one product
//! change one record twice), makes the records it may make, and is written only when every line
//! was decided: all or nothing, as in one transaction.

use uuid::Uuid;

use super::stock::write;
use super::{State, Stored};
use crate::alerts::{stock_alert, stock_alert_event, AlertLevel};
use crate::error::WarehouseError;
use crate::inventory::{Inventory, NewInventory};
use crate::operations::{InventoryChange, Stamp};
use crate::quantities::{Quantities, Thresholds};

/// The changes of one transaction, decided against `state` but not yet written.
pub(super) struct StockBatch<'s> {
    state: &'s State,
    stamp: Stamp,
    created: Vec<Inventory>,
    changes: Vec<InventoryChange>,
}

impl<'s> StockBatch<'s> {
    pub(super) fn new(state: &'s State, stamp: Stamp) -> Self {
        Self { state, stamp, created: Vec::new(), changes: Vec::new() }
    }

    /// The live record of (`product_id`, `location_id`) as this batch leaves it so far; when there
    /// is none and `make`, a new empty one (no thresholds) that the batch will insert.
    pub(super) fn record(
        &mut self,
        product_id: Uuid,
        location_id: Uuid,
        make: bool,
    ) -> Result<Option<Inventory>, WarehouseError> {
        let here = |r: &Inventory| r.product_id == product_id && r.location_id == location_id;
        if let Some(change) = self.changes.iter().rev().find(|c| here(&c.inventory)) {
            return Ok(Some(change.inventory.clone()));
        }
        if let Some(record) = self.created.iter().find(|r| here(r)) {
            return Ok(Some(record.clone()));
        }
        let mut stored = self.state.inventory.values().filter_map(Stored::live);
        if let Some(record) = stored.find(|r| r.product_id == product_id && r.location_id == location_id) {
            return Ok(Some(Inventory::restore(record.clone())));
        }
        if !make {
            return Ok(None);
        }
        let input = NewInventory { product_id, location_id, quantity_on_hand: None, thresholds: Thresholds::default() };
        let (record, _) = Inventory::create(input, self.stamp)?;
        self.created.push(record.clone());
        Ok(Some(record))
    }

    /// One decided change of a record [`StockBatch::record`] answered.
    pub(super) fn push(&mut self, change: InventoryChange) {
        self.changes.push(change);
    }

    /// What the batch decided, to write with [`commit`].
    pub(super) fn finish(self) -> (Vec<Inventory>, Vec<InventoryChange>) {
        (self.created, self.changes)
    }
}

/// Inserts the records a batch made, writes its changes with their movements and raises the stock
/// alerts they cause.
pub(super) fn commit(state: &mut State, created: Vec<Inventory>, changes: &[InventoryChange]) {
    for record in created {
        state.inventory.insert(record.id, Stored::new(record.into_record()));
    }
    for change in changes {
        write(state, change);
    }
    raise_alerts(state, changes);
}

/// The stock alerts of written `changes` ([`crate::alerts`]): each record judged once, from the
/// quantities its first change started from to the quantities it now has, against the reorder point
/// it has as stored.
pub(super) fn raise_alerts(state: &mut State, changes: &[InventoryChange]) {
    let mut judged: Vec<(Uuid, Quantities)> = Vec::new();
    for change in changes {
        if !judged.iter().any(|(id, _)| *id == change.inventory.id) {
            judged.push((change.inventory.id, change.before));
        }
    }
    for (id, before) in judged {
        let Some(record) = state.inventory.get(&id).and_then(Stored::live) else { continue };
        let record = Inventory::restore(record.clone());
        let level = AlertLevel { available: before.available(), reorder_point: record.reorder_point };
        if let Some(crossing) = stock_alert(Some(level), AlertLevel::of(&record)) {
            let sku = state.products.get(&record.product_id).map(|p| p.record.sku.clone()).unwrap_or_default();
            state.events.push(stock_alert_event(crossing, &record, &sku, record.updated_at));
        }
    }
}
