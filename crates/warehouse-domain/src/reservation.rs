//! Reserving for confirmed orders one after another against the same locked records.
//!
//! The adapter locks the candidate records once and calls [`reserve_from`] per order: the plan follows
//! [`plan_reservation`]'s rules, and a served order leaves the records in their new state, so the next
//! order sees what this one took. One order is the same call with one order; several confirmed
//! orders can so be reserved in one transaction with the decisions one transaction each would make.

use uuid::Uuid;

use crate::error::WarehouseError;
use crate::inventory::Inventory;
use crate::operations::{InventoryChange, Stamp};
use crate::planning::{plan_reservation, totals_by_inventory, Allocation, ReservationLine, Shortage, StockLevel};

/// What reserving one order against the records came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reservation {
    /// Every line served: the allocations and one change per record taken from, by inventory id.
    Reserved {
        /// Where each line's units are taken from (a line may span records).
        allocations: Vec<Allocation>,
        /// One Reservation per record taken from, sorted by inventory id, for the adapter to write.
        changes: Vec<InventoryChange>,
    },
    /// Nothing taken: every short line.
    Short(Vec<Shortage>),
}

/// Plans `lines` of `order_id` against `records` (the locked candidates) and, when every line is
/// served, reserves on each record taken from and leaves it in its new state; a short order changes
/// no record. Short stock is `Ok(Reservation::Short)`, never an error.
pub fn reserve_from(
    records: &mut [Inventory],
    order_id: Uuid,
    lines: &[ReservationLine],
    stamp: Stamp,
) -> Result<Reservation, WarehouseError> {
    let levels: Vec<StockLevel> = records
        .iter()
        .map(|r| StockLevel {
            inventory_id: r.id,
            product_id: r.product_id,
            location_id: r.location_id,
            available: r.quantity_available(),
        })
        .collect();
    let allocations = match plan_reservation(lines, &levels) {
        Ok(allocations) => allocations,
        Err(short) => return Ok(Reservation::Short(short)),
    };
    let mut changes = Vec::new();
    for total in totals_by_inventory(&allocations) {
        // The plan allocates only from the records it was given.
        let record = records
            .iter_mut()
            .find(|r| r.id == total.inventory_id)
            .ok_or(WarehouseError::NotFound { entity: "inventory record" })?;
        let change = record.reserve(total.quantity, order_id, stamp)?;
        *record = change.inventory.clone();
        changes.push(change);
    }
    Ok(Reservation::Reserved { allocations, changes })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::InventoryRecord;
    use crate::movement::MovementType;
    use time::OffsetDateTime;

    fn id(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    fn record(n: u128, product: u128, on_hand: i64, reserved: i64) -> Inventory {
        let at = OffsetDateTime::UNIX_EPOCH;
        Inventory::restore(InventoryRecord {
            id: id(100 + n),
            product_id: id(product),
            location_id: id(200 + n),
            quantity_on_hand: on_hand,
            quantity_reserved: reserved,
            quantity_committed: 0,
            reorder_point: None,
            min_stock: None,
            max_stock: None,
            created_at: at,
            updated_at: at,
            version: 3,
        })
    }

    fn line(n: u128, product: u128, quantity: i64) -> ReservationLine {
        ReservationLine { line_id: id(1000 + n), product_id: id(product), quantity }
    }

    fn stamp() -> Stamp {
        Stamp { at: OffsetDateTime::UNIX_EPOCH + time::Duration::hours(1), by: None }
    }

    #[test]
    fn a_served_order_reserves_and_leaves_the_records_in_their_new_state() {
        let mut records = vec![record(1, 1, 10, 2), record(2, 2, 5, 0)];
        let order = id(9);
        let Reservation::Reserved { allocations, changes } =
            reserve_from(&mut records, order, &[line(1, 1, 3), line(2, 2, 5)], stamp()).expect("valid")
        else {
            panic!("served");
        };
        assert_eq!(allocations.len(), 2);
        assert_eq!(changes.len(), 2);
        assert_eq!((records[0].quantity_reserved, records[1].quantity_reserved), (5, 5));
        assert_eq!(records[0].version, 4, "the record carries its next version");
        let movement = changes[0].movement.record();
        assert_eq!(movement.movement_type, MovementType::Reservation);
        assert_eq!((movement.reserved_before, movement.reserved_after), (2, 5));
        assert_eq!(movement.reference_id, Some(order));
        assert_eq!(changes[0].before.reserved, 2, "compared with what it was computed from");
    }

    #[test]
    fn the_next_order_sees_what_the_one_before_took() {
        let mut records = vec![record(1, 1, 10, 0)];
        let first = reserve_from(&mut records, id(8), &[line(1, 1, 6)], stamp()).expect("valid");
        assert!(matches!(first, Reservation::Reserved { .. }));
        let second = reserve_from(&mut records, id(9), &[line(2, 1, 6)], stamp()).expect("valid");
        let Reservation::Short(short) = second else { panic!("only 4 left") };
        assert_eq!((short[0].requested, short[0].available), (6, 4));
        assert_eq!(records[0].quantity_reserved, 6, "a short order changes nothing");
        let third = reserve_from(&mut records, id(10), &[line(3, 1, 4)], stamp()).expect("valid");
        let Reservation::Reserved { changes, .. } = third else { panic!("4 fit") };
        assert_eq!(changes[0].before.reserved, 6);
        assert_eq!(records[0].quantity_reserved, 10);
    }

    #[test]
    fn a_short_line_takes_nothing_from_the_served_ones() {
        let mut records = vec![record(1, 1, 10, 0), record(2, 2, 1, 0)];
        let outcome = reserve_from(&mut records, id(9), &[line(1, 1, 3), line(2, 2, 2)], stamp()).expect("valid");
        assert!(matches!(outcome, Reservation::Short(ref s) if s.len() == 1));
        assert_eq!((records[0].quantity_reserved, records[1].quantity_reserved), (0, 0));
    }

    #[test]
    fn no_lines_reserve_nothing() {
        let mut records = vec![record(1, 1, 10, 0)];
        let outcome = reserve_from(&mut records, id(9), &[], stamp()).expect("valid");
        assert_eq!(outcome, Reservation::Reserved { allocations: vec![], changes: vec![] });
    }
}
