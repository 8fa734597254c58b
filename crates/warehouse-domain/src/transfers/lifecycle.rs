//! Status moves of a transfer and the stock each one moves.
//!
//! | trigger | from | to | stock | sets | event | else |
//! |---|---|---|---|---|---|---|
//! | ship | draft | in_transit | every line taken off the source | `shipped_at` | `transfer.shipped` | `INVALID_STATUS_TRANSITION` |
//! | receive | in_transit | received | every line added at the destination | `received_at` | `transfer.received` | `INVALID_STATUS_TRANSITION` |
//! | cancel | draft | cancelled | none | `cancelled_at` | `transfer.cancelled` | |
//! | cancel | in_transit | cancelled | every line put back at the source | `cancelled_at` | `transfer.cancelled` (`stock_returned`) | `INVALID_STATUS_TRANSITION` from received or cancelled |
//!
//! Each [`StockInstruction`] is one `Transfer` movement (reference `transfer`/the transfer's id).
//! Shipping is all or nothing: the adapter takes every line in one transaction with conditional
//! updates (`… SET quantity_on_hand = quantity_on_hand − $q WHERE id = $id AND
//! quantity_on_hand − $q >= quantity_reserved`), rows locked in id order, and rolls everything back with
//! `INSUFFICIENT_STOCK` when one matches no row (a source without a record has nothing to take). So
//! shipping racing with order reservations on the same stock never oversells: both sides are
//! conditional updates of the same row. [`StockInstruction::apply`] is the same rule in Rust, for an
//! adapter that reads the locked record first.

use event_contracts::transfers::{
    TransferEventData, TransferEventLine, TRANSFER_CANCELLED, TRANSFER_RECEIVED, TRANSFER_SHIPPED,
};
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use uuid::Uuid;

use super::transfer::{Transfer, TransferRecord, TransferStatus};
use crate::error::WarehouseError;
use crate::inventory::Inventory;
use crate::movement::{MovementType, ReferenceType, StockMovement, StockMovementRecord};
use crate::operations::{InventoryChange, Stamp};
use crate::quantities::Quantities;

/// The reason the movements of a cancelled transfer's returned stock carry.
pub const RETURNED_REASON: &str = "transfer cancelled in transit";

/// Whether an instruction takes stock off a record or adds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StockDirection {
    /// on hand − q; never below what is reserved (`INSUFFICIENT_STOCK`).
    Take,
    /// on hand + q; the record (product, location) is made if missing.
    Put,
}

/// Stock one transfer line moves at one end: one `Transfer` movement on the record of
/// (`product_id`, `location_id`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StockInstruction {
    /// The transfer (the movement's `reference_id`, `reference_type = transfer`).
    pub transfer_id: Uuid,
    /// The transfer line.
    pub line_id: Uuid,
    /// The product moved.
    pub product_id: Uuid,
    /// The location whose record changes: the source when shipping or returning, the destination
    /// when receiving.
    pub location_id: Uuid,
    /// Units, > 0.
    pub quantity: i64,
    /// Off the record, or onto it.
    pub direction: StockDirection,
    /// The movement's reason ([`RETURNED_REASON`] for stock a cancellation puts back).
    pub reason: Option<&'static str>,
}

impl StockInstruction {
    /// The change of `inventory` (the record of this product at this location, as read under lock)
    /// with its `Transfer` movement. `INSUFFICIENT_STOCK` when a take would leave on hand below
    /// reserved; `INVALID_QUANTITY` when a put overflows; `VALIDATION_ERROR` on `inventory_id` when
    /// the record is another product's or at another location (an adapter bug).
    pub fn apply(&self, inventory: &Inventory, stamp: Stamp) -> Result<InventoryChange, WarehouseError> {
        if inventory.product_id != self.product_id || inventory.location_id != self.location_id {
            return Err(WarehouseError::Validation {
                field: "inventory_id",
                message: "is not the instruction's record",
            });
        }
        if self.quantity <= 0 {
            return Err(WarehouseError::InvalidQuantity);
        }
        let before = inventory.quantities();
        let on_hand = match self.direction {
            StockDirection::Take => before.on_hand.checked_sub(self.quantity),
            StockDirection::Put => before.on_hand.checked_add(self.quantity),
        }
        .ok_or(WarehouseError::QuantityOutOfRange)?;
        let after = Quantities { on_hand, ..before };
        if !after.is_consistent() {
            return Err(WarehouseError::InsufficientStock { requested: self.quantity, available: before.available() });
        }
        let movement = StockMovement::new(StockMovementRecord {
            id: shared_kernel::new_id(),
            inventory_id: inventory.id,
            product_id: inventory.product_id,
            location_id: inventory.location_id,
            movement_type: MovementType::Transfer,
            quantity: self.quantity,
            quantity_before: before.on_hand,
            quantity_after: after.on_hand,
            reserved_before: before.reserved,
            reserved_after: after.reserved,
            unit_cost: None,
            total_cost: None,
            currency: None,
            reference_type: ReferenceType::Transfer,
            reference_id: Some(self.transfer_id),
            reason: self.reason.map(str::to_owned),
            created_by: stamp.by,
            created_at: stamp.at,
        });
        Ok(InventoryChange { inventory: inventory.with_quantities(after, stamp.at), before, movement })
    }
}

/// One decided move of one transfer, written by [`super::TransferRepository::save`] in one
/// transaction: `UPDATE transfers … WHERE id = $id AND version = expected_version AND status =
/// expected_status` (`Stale` otherwise), every stock instruction (all or nothing), the stock alerts
/// they cause, the events.
#[derive(Debug, Clone, PartialEq)]
pub struct TransferStatusChange {
    /// The state to write (its `version` is already `expected_version + 1`).
    pub transfer: Transfer,
    /// The `version` the change was computed from.
    pub expected_version: i64,
    /// The status the change was computed from.
    pub expected_status: TransferStatus,
    /// The stock to move, one instruction per line, in line order.
    pub stock: Vec<StockInstruction>,
    /// Events for the outbox.
    pub events: Vec<EventEnvelope>,
}

fn event(name: &'static str, t: &TransferRecord, stock_returned: bool, now: OffsetDateTime) -> EventEnvelope {
    let data = TransferEventData {
        transfer_id: t.id,
        transfer_number: t.transfer_number.to_string(),
        from_location_id: t.from_location_id,
        to_location_id: t.to_location_id,
        status: t.status.as_str().to_owned(),
        stock_returned,
        lines: t
            .lines
            .iter()
            .map(|l| TransferEventLine { line_id: l.id, product_id: l.product_id, quantity: l.quantity })
            .collect(),
    };
    EventEnvelope::with_payload(name, t.id, now, &data)
}

impl Transfer {
    fn refuse(&self, action: &'static str) -> WarehouseError {
        WarehouseError::InvalidTransition { entity: "transfer", from: self.status.as_str(), action }
    }

    fn instructions(
        &self,
        location_id: Uuid,
        direction: StockDirection,
        reason: Option<&'static str>,
    ) -> Vec<StockInstruction> {
        self.lines
            .iter()
            .map(|l| StockInstruction {
                transfer_id: self.id,
                line_id: l.id,
                product_id: l.product_id,
                location_id,
                quantity: l.quantity,
                direction,
                reason,
            })
            .collect()
    }

    fn moved(
        &self,
        next: TransferRecord,
        stock: Vec<StockInstruction>,
        name: &'static str,
        stock_returned: bool,
    ) -> TransferStatusChange {
        let events = vec![event(name, &next, stock_returned, next.updated_at)];
        TransferStatusChange {
            transfer: Transfer::wrap(next),
            expected_version: self.version,
            expected_status: self.status,
            stock,
            events,
        }
    }

    /// draft → in_transit: takes every line off the source (all or nothing, by the adapter), sets
    /// `shipped_at`, raises `transfer.shipped`. `INVALID_STATUS_TRANSITION` from any other status.
    pub fn ship(&self, now: OffsetDateTime) -> Result<TransferStatusChange, WarehouseError> {
        if self.status != TransferStatus::Draft {
            return Err(self.refuse("ship"));
        }
        let mut next = self.next_record(now);
        next.status = TransferStatus::InTransit;
        next.shipped_at = Some(now);
        let stock = self.instructions(self.from_location_id, StockDirection::Take, None);
        Ok(self.moved(next, stock, TRANSFER_SHIPPED, false))
    }

    /// in_transit → received: adds every line at the destination (records made if missing), sets
    /// `received_at`, raises `transfer.received`. `INVALID_STATUS_TRANSITION` from any other status.
    pub fn receive(&self, now: OffsetDateTime) -> Result<TransferStatusChange, WarehouseError> {
        if self.status != TransferStatus::InTransit {
            return Err(self.refuse("receive"));
        }
        let mut next = self.next_record(now);
        next.status = TransferStatus::Received;
        next.received_at = Some(now);
        let stock = self.instructions(self.to_location_id, StockDirection::Put, None);
        Ok(self.moved(next, stock, TRANSFER_RECEIVED, false))
    }

    /// draft → cancelled (nothing moves), or in_transit → cancelled putting every line back at the
    /// source ([`RETURNED_REASON`]); sets `cancelled_at`, raises `transfer.cancelled`.
    /// `INVALID_STATUS_TRANSITION` from received or cancelled.
    pub fn cancel(&self, now: OffsetDateTime) -> Result<TransferStatusChange, WarehouseError> {
        let stock = match self.status {
            TransferStatus::Draft => Vec::new(),
            TransferStatus::InTransit => {
                self.instructions(self.from_location_id, StockDirection::Put, Some(RETURNED_REASON))
            }
            TransferStatus::Received | TransferStatus::Cancelled => return Err(self.refuse("cancel")),
        };
        let mut next = self.next_record(now);
        next.status = TransferStatus::Cancelled;
        next.cancelled_at = Some(now);
        let returned = !stock.is_empty();
        Ok(self.moved(next, stock, TRANSFER_CANCELLED, returned))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::InventoryRecord;
    use crate::transfers::transfer::tests::{at, draft, stamp, FROM, TO};
    use shared_kernel::error::Classified;
    use TransferStatus::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Trigger {
        Ship,
        Receive,
        Cancel,
    }

    /// The status left, the stock moved (direction and location per line) and the events; or the
    /// refusal's code.
    type Outcome = Result<(TransferStatus, Vec<(StockDirection, Uuid)>, Vec<String>), &'static str>;

    fn in_state(status: TransferStatus) -> Transfer {
        let mut record = draft().into_record();
        record.status = status;
        Transfer::restore(record)
    }

    fn run(transfer: &Transfer, trigger: Trigger) -> Outcome {
        let result = match trigger {
            Trigger::Ship => transfer.ship(at(9)),
            Trigger::Receive => transfer.receive(at(9)),
            Trigger::Cancel => transfer.cancel(at(9)),
        };
        result
            .map(|c| {
                let stock = c.stock.iter().map(|s| (s.direction, s.location_id)).collect();
                (c.transfer.status, stock, c.events.into_iter().map(|e| e.name).collect())
            })
            .map_err(|e| e.code())
    }

    /// Every status against every trigger, with the exact outcome.
    #[test]
    fn every_status_against_every_trigger() {
        use StockDirection::{Put, Take};
        let expected = |status, trigger| -> Outcome {
            let ok = |to, direction: Option<(StockDirection, Uuid)>, name: &str| {
                let stock = direction.map(|d| vec![d, d]).unwrap_or_default(); // two lines
                Ok((to, stock, vec![name.to_owned()]))
            };
            match (status, trigger) {
                (Draft, Trigger::Ship) => ok(InTransit, Some((Take, FROM)), TRANSFER_SHIPPED),
                (Draft, Trigger::Receive) => Err("INVALID_STATUS_TRANSITION"),
                (Draft, Trigger::Cancel) => ok(Cancelled, None, TRANSFER_CANCELLED),
                (InTransit, Trigger::Ship) => Err("INVALID_STATUS_TRANSITION"),
                (InTransit, Trigger::Receive) => ok(Received, Some((Put, TO)), TRANSFER_RECEIVED),
                (InTransit, Trigger::Cancel) => ok(Cancelled, Some((Put, FROM)), TRANSFER_CANCELLED),
                (Received | Cancelled, _) => Err("INVALID_STATUS_TRANSITION"),
            }
        };
        let mut cases = 0;
        for status in TransferStatus::ALL {
            for trigger in [Trigger::Ship, Trigger::Receive, Trigger::Cancel] {
                assert_eq!(run(&in_state(status), trigger), expected(status, trigger), "{status} × {trigger:?}");
                cases += 1;
            }
        }
        assert_eq!(cases, 12);
    }

    #[test]
    fn ship_receive_and_the_timestamps() {
        let transfer = draft();
        let shipped = transfer.ship(at(5)).expect("draft");
        assert_eq!((shipped.expected_version, shipped.expected_status), (1, Draft));
        assert_eq!((shipped.transfer.shipped_at, shipped.transfer.version), (Some(at(5)), 2));
        assert_eq!(
            shipped.stock[0],
            StockInstruction {
                transfer_id: transfer.id,
                line_id: transfer.lines[0].id,
                product_id: transfer.lines[0].product_id,
                location_id: FROM,
                quantity: 5,
                direction: StockDirection::Take,
                reason: None,
            }
        );
        let data: TransferEventData = shipped.events[0].payload().expect("its shape");
        assert_eq!((data.status.as_str(), data.stock_returned, data.lines.len()), ("in_transit", false, 2));
        assert_eq!(shipped.events[0].aggregate_id, transfer.id);
        let in_transit = shipped.transfer;
        assert_eq!(in_transit.incoming(transfer.lines[0].product_id, TO), 5);
        assert_eq!(in_transit.incoming(transfer.lines[0].product_id, FROM), 0, "incoming only at the destination");
        assert_eq!(transfer.incoming(transfer.lines[0].product_id, TO), 0, "a draft brings nothing yet");

        let received = in_transit.receive(at(6)).expect("in transit");
        assert_eq!((received.transfer.status, received.transfer.received_at), (Received, Some(at(6))));
        assert!(received.stock.iter().all(|s| s.location_id == TO && s.direction == StockDirection::Put));
        assert_eq!(received.transfer.incoming(transfer.lines[0].product_id, TO), 0);
        assert_eq!(received.transfer.shipped_at, Some(at(5)));
    }

    #[test]
    fn cancelling_in_transit_puts_the_stock_back() {
        let in_transit = draft().ship(at(5)).expect("ok").transfer;
        let cancelled = in_transit.cancel(at(7)).expect("in transit");
        assert_eq!((cancelled.transfer.status, cancelled.transfer.cancelled_at), (Cancelled, Some(at(7))));
        assert!(cancelled
            .stock
            .iter()
            .all(|s| s.location_id == FROM && s.direction == StockDirection::Put && s.reason == Some(RETURNED_REASON)));
        let data: TransferEventData = cancelled.events[0].payload().expect("its shape");
        assert!(data.stock_returned);
        let from_draft = draft().cancel(at(7)).expect("draft");
        assert!(from_draft.stock.is_empty());
        let data: TransferEventData = from_draft.events[0].payload().expect("its shape");
        assert!(!data.stock_returned);
    }

    fn record(product: Uuid, location: Uuid, on_hand: i64, reserved: i64) -> Inventory {
        Inventory::restore(InventoryRecord {
            id: Uuid::from_u128(500),
            product_id: product,
            location_id: location,
            quantity_on_hand: on_hand,
            quantity_reserved: reserved,
            quantity_committed: 0,
            reorder_point: None,
            min_stock: None,
            max_stock: None,
            created_at: at(0),
            updated_at: at(0),
            version: 4,
        })
    }

    #[test]
    fn instructions_apply_to_their_records() {
        let transfer = draft();
        let take = &transfer.ship(at(5)).expect("ok").stock[0]; // 5 of product 1 off FROM
        let product = take.product_id;
        let change = take.apply(&record(product, FROM, 12, 7), stamp(5)).expect("5 available");
        assert_eq!(change.before, Quantities { on_hand: 12, reserved: 7, committed: 0 });
        assert_eq!((change.inventory.quantity_on_hand, change.inventory.version), (7, 5));
        let m = change.movement.record();
        assert_eq!(
            (m.movement_type, m.quantity, m.quantity_before, m.quantity_after),
            (MovementType::Transfer, 5, 12, 7)
        );
        assert_eq!(
            (m.reference_type, m.reference_id, m.created_by),
            (ReferenceType::Transfer, Some(transfer.id), stamp(5).by)
        );
        // Reserved stock is not transferable.
        assert_eq!(
            take.apply(&record(product, FROM, 12, 8), stamp(5)),
            Err(WarehouseError::InsufficientStock { requested: 5, available: 4 })
        );
        // The wrong record is an adapter bug.
        assert_eq!(take.apply(&record(product, TO, 12, 0), stamp(5)).map_err(|e| e.field()), Err(Some("inventory_id")));
        let other = Uuid::from_u128(77);
        assert_eq!(take.apply(&record(other, FROM, 12, 0), stamp(5)).map_err(|e| e.field()), Err(Some("inventory_id")));

        let put = StockInstruction { location_id: TO, direction: StockDirection::Put, ..take.clone() };
        let change = put.apply(&record(product, TO, 0, 0), stamp(6)).expect("a new record");
        assert_eq!((change.inventory.quantity_on_hand, change.movement.quantity_after), (5, 5));
        assert_eq!(put.apply(&record(product, TO, i64::MAX, 0), stamp(6)), Err(WarehouseError::QuantityOutOfRange));
        let returned = StockInstruction { reason: Some(RETURNED_REASON), ..put };
        let change = returned.apply(&record(product, TO, 1, 0), stamp(6)).expect("ok");
        assert_eq!(change.movement.reason.as_deref(), Some(RETURNED_REASON));
        let zero = StockInstruction { quantity: 0, ..returned };
        assert_eq!(zero.apply(&record(product, TO, 1, 0), stamp(6)), Err(WarehouseError::InvalidQuantity));
    }
}
