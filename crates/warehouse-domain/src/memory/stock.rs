//! Inventory records and their movements in memory.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest, StorageError};
use time::OffsetDateTime;
use uuid::Uuid;

use super::batch::raise_alerts;
use super::purchasing::incoming;
use super::{page_of, InMemoryWarehouse, State, Stored};
use crate::alerts::{stock_alert, stock_alert_event, AlertLevel};
use crate::error::WarehouseError;
use crate::inventory::{Inventory, InventoryRecord};
use crate::movement::StockMovement;
use crate::operations::{InventoryChange, TransferChange, WithIncoming};
use crate::quantities::Quantities;
use crate::repository::{
    Availability, InventoryFilter, InventoryRepository, MovementFilter, RecentLimit, RepoError, StockMovementRepository,
};

fn quantities(r: &InventoryRecord) -> Quantities {
    Quantities { on_hand: r.quantity_on_hand, reserved: r.quantity_reserved, committed: r.quantity_committed }
}

fn live_at(state: &State, product_id: Uuid, location_id: Uuid) -> Option<&InventoryRecord> {
    state
        .inventory
        .values()
        .filter_map(Stored::live)
        .find(|r| r.product_id == product_id && r.location_id == location_id)
}

/// Whether `change` may be written: `Stale` when the record's quantities moved, `NotFound` when it
/// is gone.
pub(super) fn check(state: &State, change: &InventoryChange) -> Result<(), RepoError> {
    match state.inventory.get(&change.inventory.id).and_then(Stored::live) {
        None => Err(StorageError::NotFound.into()),
        Some(record) if quantities(record) != change.before => Err(StorageError::Stale.into()),
        Some(_) => Ok(()),
    }
}

/// Writes a checked change: the record's new quantities (thresholds kept as stored) and its movement.
pub(super) fn write(state: &mut State, change: &InventoryChange) {
    if let Some(stored) = state.inventory.get_mut(&change.inventory.id) {
        let after = change.inventory.record();
        stored.record.quantity_on_hand = after.quantity_on_hand;
        stored.record.quantity_reserved = after.quantity_reserved;
        stored.record.quantity_committed = after.quantity_committed;
        stored.record.updated_at = after.updated_at;
        stored.record.version = stored.record.version.saturating_add(1);
    }
    state.movements.push(change.movement.clone());
}

fn newest_first(movements: &mut [StockMovement]) {
    movements.sort_by_key(|m| std::cmp::Reverse((m.created_at, m.id)));
}

fn matches(filter: &MovementFilter, m: &StockMovement) -> bool {
    let day_start = |d: time::Date| d.midnight().assume_utc();
    filter.movement_type.is_none_or(|t| m.movement_type == t)
        && filter.inventory_id.is_none_or(|id| m.inventory_id == id)
        && filter.product_id.is_none_or(|id| m.product_id == id)
        && filter.location_id.is_none_or(|id| m.location_id == id)
        && filter.reference_id.is_none_or(|id| m.reference_id == Some(id))
        && filter.date_from.is_none_or(|from| m.created_at >= day_start(from))
        // Inclusive: everything before the start of the next day.
        && filter.date_to.and_then(time::Date::next_day).is_none_or(|next| m.created_at < day_start(next))
}

/// The incoming stock at the record a change wrote.
fn incoming_of(state: &State, change: &InventoryChange) -> i64 {
    incoming(state, change.inventory.product_id, Some(change.inventory.location_id))
}

#[async_trait]
impl InventoryRepository for InMemoryWarehouse {
    async fn create(&self, inventory: &Inventory, initial: Option<&StockMovement>) -> Result<i64, RepoError> {
        let mut state = self.lock();
        if live_at(&state, inventory.product_id, inventory.location_id).is_some() {
            return Err(StorageError::Conflict { field: "location_id" }.into());
        }
        if state.inventory.contains_key(&inventory.id) {
            return Err(StorageError::Conflict { field: "resource" }.into());
        }
        state.inventory.insert(inventory.id, Stored::new(inventory.record().clone()));
        state.movements.extend(initial.cloned());
        Ok(incoming(&state, inventory.product_id, Some(inventory.location_id)))
    }

    async fn get(&self, id: Uuid) -> Result<Inventory, RepoError> {
        let state = self.lock();
        let record = state.inventory.get(&id).and_then(Stored::live).ok_or(StorageError::NotFound)?;
        Ok(Inventory::restore(record.clone()))
    }

    async fn find(&self, product_id: Uuid, location_id: Uuid) -> Result<Option<Inventory>, RepoError> {
        let state = self.lock();
        Ok(live_at(&state, product_id, location_id).map(|r| Inventory::restore(r.clone())))
    }

    async fn list(&self, filter: &InventoryFilter, page: PageRequest) -> Result<Page<Inventory>, RepoError> {
        let state = self.lock();
        let mut records: Vec<Inventory> = state
            .inventory
            .values()
            .filter_map(Stored::live)
            .filter(|r| filter.product_id.is_none_or(|id| r.product_id == id))
            .filter(|r| filter.location_id.is_none_or(|id| r.location_id == id))
            .map(|r| Inventory::restore(r.clone()))
            .filter(|r| !filter.low_stock || r.is_low_stock())
            .collect();
        records.sort_by_key(|r| std::cmp::Reverse((r.created_at, r.id)));
        Ok(page_of(records, page))
    }

    async fn update_thresholds(&self, inventory: &Inventory) -> Result<WithIncoming<Inventory>, RepoError> {
        let mut state = self.lock();
        let stored =
            state.inventory.get_mut(&inventory.id).filter(|r| r.deleted_at.is_none()).ok_or(StorageError::NotFound)?;
        let before = AlertLevel::of(&Inventory::restore(stored.record.clone()));
        stored.record.reorder_point = inventory.reorder_point;
        stored.record.min_stock = inventory.min_stock;
        stored.record.max_stock = inventory.max_stock;
        stored.record.updated_at = inventory.updated_at;
        stored.record.version = stored.record.version.saturating_add(1);
        // A new reorder point may be a crossing too (crate::alerts).
        let after = Inventory::restore(stored.record.clone());
        if let Some(crossing) = stock_alert(Some(before), AlertLevel::of(&after)) {
            let sku = state.products.get(&after.product_id).map(|p| p.record.sku.clone()).unwrap_or_default();
            state.events.push(stock_alert_event(crossing, &after, &sku, after.updated_at));
        }
        let incoming = incoming(&state, after.product_id, Some(after.location_id));
        Ok(WithIncoming::new(after, incoming))
    }

    async fn apply(&self, change: &InventoryChange) -> Result<i64, RepoError> {
        let mut state = self.lock();
        check(&state, change)?;
        write(&mut state, change);
        raise_alerts(&mut state, std::slice::from_ref(change));
        Ok(incoming_of(&state, change))
    }

    async fn apply_transfer(&self, change: &TransferChange) -> Result<[i64; 2], RepoError> {
        let mut state = self.lock();
        let to = change.to.inventory.record();
        // The destination may be new; one created meanwhile under another id wins (and we are stale).
        let mut inserted = None;
        if !state.inventory.contains_key(&to.id) && live_at(&state, to.product_id, to.location_id).is_none() {
            let empty = InventoryRecord {
                quantity_on_hand: 0,
                quantity_reserved: 0,
                quantity_committed: 0,
                updated_at: to.created_at,
                version: 1,
                ..to.clone()
            };
            state.inventory.insert(to.id, Stored::new(empty));
            inserted = Some(to.id);
        }
        let checked = check(&state, &change.from).and_then(|()| match check(&state, &change.to) {
            // A destination created meanwhile under another id: the transfer is decided again.
            Err(RepoError::Storage(StorageError::NotFound)) => Err(StorageError::Stale.into()),
            other => other,
        });
        if let Err(error) = checked {
            if let Some(id) = inserted {
                state.inventory.remove(&id);
            }
            return Err(error);
        }
        write(&mut state, &change.from);
        write(&mut state, &change.to);
        raise_alerts(&mut state, &[change.from.clone(), change.to.clone()]);
        Ok([incoming_of(&state, &change.from), incoming_of(&state, &change.to)])
    }

    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError> {
        let mut state = self.lock();
        let stored = state.inventory.get_mut(&id).filter(|r| r.deleted_at.is_none()).ok_or(StorageError::NotFound)?;
        if stored.record.quantity_reserved != 0 {
            return Err(WarehouseError::StockReserved.into());
        }
        stored.deleted_at = Some(now);
        stored.record.updated_at = now;
        Ok(())
    }

    async fn availability(&self, product_id: Uuid) -> Result<Availability, RepoError> {
        let state = self.lock();
        let totals = state.inventory.values().filter_map(Stored::live).filter(|r| r.product_id == product_id).fold(
            Quantities { on_hand: 0, reserved: 0, committed: 0 },
            |sum, r| Quantities {
                on_hand: sum.on_hand.saturating_add(r.quantity_on_hand),
                reserved: sum.reserved.saturating_add(r.quantity_reserved),
                committed: sum.committed.saturating_add(r.quantity_committed),
            },
        );
        Ok(Availability::new(product_id, totals).with_incoming(incoming(&state, product_id, None)))
    }

    async fn incoming(&self, records: &[(Uuid, Uuid)]) -> Result<Vec<i64>, RepoError> {
        let state = self.lock();
        Ok(records.iter().map(|&(product_id, location_id)| incoming(&state, product_id, Some(location_id))).collect())
    }
}

#[async_trait]
impl StockMovementRepository for InMemoryWarehouse {
    async fn get(&self, id: Uuid) -> Result<StockMovement, RepoError> {
        let state = self.lock();
        state.movements.iter().find(|m| m.id == id).cloned().ok_or(StorageError::NotFound.into())
    }

    async fn list(&self, filter: &MovementFilter, page: PageRequest) -> Result<Page<StockMovement>, RepoError> {
        let state = self.lock();
        let mut movements: Vec<StockMovement> =
            state.movements.iter().filter(|m| matches(filter, m)).cloned().collect();
        newest_first(&mut movements);
        Ok(page_of(movements, page))
    }

    async fn recent(&self, limit: RecentLimit) -> Result<Vec<StockMovement>, RepoError> {
        let state = self.lock();
        let mut movements = state.movements.clone();
        newest_first(&mut movements);
        movements.truncate(usize::try_from(limit.get()).unwrap_or(usize::MAX));
        Ok(movements)
    }
}
