//! Settling what an order holds when it is cancelled (release) or fulfilled (commit).
//!
//! The adapter locks the order's hold, asks [`crate::order_hold::decide`] whether the event settles,
//! reads what the order holds per record from its movements ([`crate::held_for_order`]), locks those
//! records and calls [`settle_held`], which decides every quantity change and the reply.

use shared_kernel::EventEnvelope;
use uuid::Uuid;

use crate::error::WarehouseError;
use crate::events;
use crate::inventory::Inventory;
use crate::operations::{InventoryChange, Stamp};
use crate::order_hold::HoldEvent;
use crate::planning::InventoryQuantity;

/// What settling an order comes to: the changes to write and the reply to send.
#[derive(Debug, Clone, PartialEq)]
pub struct Settlement {
    /// What was released or committed per record (possibly nothing).
    pub settled: Vec<InventoryQuantity>,
    /// One Release or Commit per record settled, for the adapter to write.
    pub changes: Vec<InventoryChange>,
    /// `warehouse.stock_committed` for a commit, `warehouse.stock_released` otherwise.
    pub reply: EventEnvelope,
}

/// Settles `held` (what `order_id` holds per record) against the locked `records`: a
/// [`HoldEvent::Commit`] commits, any other event releases. Never more than a record still has
/// reserved (someone may have released by hand); a record that is gone or holds nothing is skipped.
pub fn settle_held(
    order_id: Uuid,
    event: HoldEvent,
    held: &[InventoryQuantity],
    records: &[Inventory],
    stamp: Stamp,
) -> Result<Settlement, WarehouseError> {
    let mut settled = Vec::with_capacity(held.len());
    let mut changes = Vec::with_capacity(held.len());
    for hold in held {
        let Some(record) = records.iter().find(|r| r.id == hold.inventory_id) else { continue };
        let quantity = hold.quantity.min(record.quantity_reserved);
        if quantity <= 0 {
            continue;
        }
        let change = match event {
            HoldEvent::Commit => record.commit(quantity, order_id, stamp),
            HoldEvent::Reserve | HoldEvent::Release => record.release(quantity, order_id, stamp),
        }?;
        changes.push(change);
        settled.push(InventoryQuantity { inventory_id: hold.inventory_id, quantity });
    }
    let reply = match event {
        HoldEvent::Commit => events::stock_committed(order_id, &settled, stamp.at),
        HoldEvent::Reserve | HoldEvent::Release => events::stock_released(order_id, &settled, stamp.at),
    };
    Ok(Settlement { settled, changes, reply })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::tests::{stamp, stock};
    use crate::movement::MovementType;

    #[test]
    fn a_commit_takes_what_is_held_and_no_more_than_is_reserved() {
        let order = Uuid::from_u128(7);
        let record = stock(20, 3, 0);
        let held = [
            InventoryQuantity { inventory_id: record.id, quantity: 5 },
            InventoryQuantity { inventory_id: Uuid::from_u128(99), quantity: 2 },
        ];
        let settlement =
            settle_held(order, HoldEvent::Commit, &held, std::slice::from_ref(&record), stamp()).expect("valid");
        assert_eq!(settlement.settled, [InventoryQuantity { inventory_id: record.id, quantity: 3 }]);
        assert_eq!(settlement.changes[0].movement.movement_type, MovementType::Commit);
        assert_eq!(settlement.reply.name, events::STOCK_COMMITTED);
    }

    #[test]
    fn a_release_of_nothing_still_replies() {
        let order = Uuid::from_u128(7);
        let record = stock(20, 0, 0);
        let held = [InventoryQuantity { inventory_id: record.id, quantity: 5 }];
        let settlement = settle_held(order, HoldEvent::Release, &held, &[record], stamp()).expect("valid");
        assert!(settlement.settled.is_empty() && settlement.changes.is_empty());
        assert_eq!(settlement.reply.name, events::STOCK_RELEASED);
    }
}
