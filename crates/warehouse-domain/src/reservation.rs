//! Reserving for confirmed orders one after another against the same locked records.
//!
//! The adapter locks the candidate records once and calls [`reserve_from`] per order: the plan follows
//! [`plan_reservation`]'s rules, and a served order leaves the records in their new state, so the next
//! order sees what this one took. One order is the same call with one order; several confirmed
//! orders can so be reserved in one transaction with the decisions one transaction each would make.

use shared_kernel::EventEnvelope;
use uuid::Uuid;

use crate::error::WarehouseError;
use crate::events::{self, INSUFFICIENT_STOCK_REASON};
use crate::inventory::Inventory;
use crate::operations::{InventoryChange, Stamp};
use crate::order_hold::{self, HoldDecision, HoldEvent, HoldStatus};
use crate::planning::{plan_reservation, totals_by_inventory, Allocation, ReservationLine, Shortage, StockLevel};
use crate::repository::ReservationOutcome;

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

/// The warehouse's answer to one `order.confirmed`: what to report, and what the adapter writes in
/// the transaction that holds the order's hold and the candidate records locked.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfirmationAnswer {
    /// What handling the confirmation came to.
    pub outcome: ReservationOutcome,
    /// The quantity changes to write, one per record taken from (empty unless reserved).
    pub changes: Vec<InventoryChange>,
    /// The hold status to store; `None` leaves the hold as it is.
    pub hold: Option<HoldStatus>,
    /// The reply for the order context; `None` says nothing.
    pub reply: Option<EventEnvelope>,
}

impl ConfirmationAnswer {
    fn nothing(outcome: ReservationOutcome) -> Self {
        Self { outcome, changes: Vec::new(), hold: None, reply: None }
    }
}

/// What a confirmation of `order_id` means for stock, given the order's stored `hold` (`None`: no
/// decision yet) and the locked candidate `records`: the hold state machine says whether to plan;
/// a plan reserves every line or none ([`reserve_from`], which leaves `records` as it leaves them
/// for the next order); the reply is `warehouse.stock_reserved` or `warehouse.reservation_failed`.
pub fn answer_confirmation(
    hold: Option<HoldStatus>,
    order_id: Uuid,
    lines: &[ReservationLine],
    records: &mut [Inventory],
    stamp: Stamp,
) -> Result<ConfirmationAnswer, WarehouseError> {
    match order_hold::decide(hold, HoldEvent::Reserve) {
        HoldDecision::PlanReservation => {}
        HoldDecision::SkipReleased => return Ok(ConfirmationAnswer::nothing(ReservationOutcome::AlreadyReleased)),
        HoldDecision::SkipHandled | HoldDecision::Settle { .. } => {
            return Ok(ConfirmationAnswer::nothing(ReservationOutcome::AlreadyHandled))
        }
    }
    Ok(match reserve_from(records, order_id, lines, stamp)? {
        Reservation::Reserved { allocations, changes } => ConfirmationAnswer {
            reply: Some(events::stock_reserved(order_id, &allocations, stamp.at)),
            hold: Some(order_hold::after_planning(true)),
            changes,
            outcome: ReservationOutcome::Reserved(allocations),
        },
        Reservation::Short(short_lines) => ConfirmationAnswer {
            reply: Some(events::reservation_failed(order_id, INSUFFICIENT_STOCK_REASON, &short_lines, stamp.at)),
            hold: Some(order_hold::after_planning(false)),
            changes: Vec::new(),
            outcome: ReservationOutcome::Failed(short_lines),
        },
    })
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

    #[test]
    fn a_confirmation_is_planned_once_and_never_after_a_release() {
        let mut records = vec![record(1, 1, 10, 0)];
        let answer = answer_confirmation(None, id(9), &[line(1, 1, 4)], &mut records, stamp()).expect("valid");
        assert!(matches!(answer.outcome, ReservationOutcome::Reserved(ref a) if a.len() == 1));
        assert_eq!((answer.hold, answer.changes.len()), (Some(HoldStatus::Reserved), 1));
        assert_eq!(answer.reply.map(|e| e.name), Some(events::STOCK_RESERVED.to_owned()));

        let short = answer_confirmation(None, id(10), &[line(2, 1, 7)], &mut records, stamp()).expect("valid");
        assert!(matches!(short.outcome, ReservationOutcome::Failed(_)));
        assert_eq!((short.hold, short.changes.len()), (Some(HoldStatus::Failed), 0));
        assert_eq!(short.reply.map(|e| e.name), Some(events::RESERVATION_FAILED.to_owned()));

        for (hold, outcome) in [
            (HoldStatus::Released, ReservationOutcome::AlreadyReleased),
            (HoldStatus::Reserved, ReservationOutcome::AlreadyHandled),
            (HoldStatus::Failed, ReservationOutcome::AlreadyHandled),
            (HoldStatus::Committed, ReservationOutcome::AlreadyHandled),
        ] {
            let answer = answer_confirmation(Some(hold), id(11), &[line(3, 1, 1)], &mut records, stamp()).expect("ok");
            assert_eq!(answer, ConfirmationAnswer::nothing(outcome));
        }
        assert_eq!(records[0].quantity_reserved, 4, "only the first order took stock");
    }
}
