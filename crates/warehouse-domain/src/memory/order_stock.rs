//! The order flow in memory: the same decisions as the PostgreSQL adapter, each method one step
//! under the store's lock (which serialises an order's events as its hold row does there).

use std::collections::BTreeSet;

use async_trait::async_trait;
use uuid::Uuid;

use super::batch::raise_alerts;
use super::stock::{check, write};
use super::{InMemoryWarehouse, State, Stored};
use crate::inventory::Inventory;
use crate::movement::held_for_order;
use crate::operations::{InventoryChange, Stamp};
use crate::order_hold::{self, HoldDecision, HoldEvent};
use crate::planning::ReservationLine;
use crate::repository::{OrderStockRepository, RepoError, ReservationOutcome, SettleOutcome};
use crate::reservation::answer_confirmation;
use crate::settlement::settle_held;

/// The candidate records of `products`: live, at live active locations, in id order.
fn candidates(state: &State, products: &BTreeSet<Uuid>) -> Vec<Inventory> {
    let open = |location: Uuid| state.locations.get(&location).and_then(Stored::live).is_some_and(|l| l.is_active);
    state
        .inventory
        .values()
        .filter_map(Stored::live)
        .filter(|r| products.contains(&r.product_id) && open(r.location_id))
        .map(|r| Inventory::restore(r.clone()))
        .collect()
}

/// Every change checked first, then all written: all or nothing, as in one transaction; the stock
/// alerts judged once per record over the whole batch.
fn write_all(state: &mut State, changes: &[InventoryChange]) -> Result<(), RepoError> {
    for change in changes {
        check(state, change)?;
    }
    for change in changes {
        write(state, change);
    }
    raise_alerts(state, changes);
    Ok(())
}

impl InMemoryWarehouse {
    fn settle(&self, order_id: Uuid, event: HoldEvent, stamp: Stamp) -> Result<SettleOutcome, RepoError> {
        let mut state = self.lock();
        let HoldDecision::Settle { status } = order_hold::decide(state.holds.get(&order_id).copied(), event) else {
            return Ok(SettleOutcome::AlreadyHandled);
        };
        let held = held_for_order(&state.movements, order_id);
        let records: Vec<Inventory> = held
            .iter()
            .filter_map(|h| state.inventory.get(&h.inventory_id).and_then(Stored::live))
            .map(|r| Inventory::restore(r.clone()))
            .collect();
        let settlement = settle_held(order_id, event, &held, &records, stamp)?;
        write_all(&mut state, &settlement.changes)?;
        state.holds.insert(order_id, status);
        state.events.push(settlement.reply);
        Ok(SettleOutcome::Settled(settlement.settled))
    }
}

#[async_trait]
impl OrderStockRepository for InMemoryWarehouse {
    async fn reserve_for_order(
        &self,
        order_id: Uuid,
        lines: &[ReservationLine],
        stamp: Stamp,
    ) -> Result<ReservationOutcome, RepoError> {
        let mut state = self.lock();
        let products: BTreeSet<Uuid> = lines.iter().map(|l| l.product_id).collect();
        let mut records = candidates(&state, &products);
        let hold = state.holds.get(&order_id).copied();
        let answer = answer_confirmation(hold, order_id, lines, &mut records, stamp)?;
        write_all(&mut state, &answer.changes)?;
        if let Some(status) = answer.hold {
            state.holds.insert(order_id, status);
        }
        state.events.extend(answer.reply);
        Ok(answer.outcome)
    }

    async fn release_for_order(&self, order_id: Uuid, stamp: Stamp) -> Result<SettleOutcome, RepoError> {
        self.settle(order_id, HoldEvent::Release, stamp)
    }

    async fn commit_for_order(&self, order_id: Uuid, stamp: Stamp) -> Result<SettleOutcome, RepoError> {
        self.settle(order_id, HoldEvent::Commit, stamp)
    }
}
