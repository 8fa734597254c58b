//! Inventory operations: the specification of the stock arithmetic.
//!
//! Each operation is pure: it takes the record as read, refuses impossible moves, and returns an
//! [`InventoryChange`] — the new record, the quantities it was computed from and the one movement to
//! append. The adapter writes it in one transaction as a compare-and-set:
//! `UPDATE inventory SET quantity_on_hand = $after, quantity_reserved = $after, quantity_committed =
//! $after, updated_at = $now WHERE id = $id AND quantity_on_hand = $before AND quantity_reserved =
//! $before AND quantity_committed = $before AND deleted_at IS NULL`, then inserts the movement. Zero rows
//! means a concurrent change: `Stale`, reload and retry. (Several rows in one transaction — the order
//! flow — are locked `FOR UPDATE` in id order first.) The database CHECK `0 ≤ reserved ≤ on_hand` is
//! the last line of defence.
//!
//! | operation | on hand | reserved | committed | refused with |
//! |---|---|---|---|---|
//! | receive q | + q | | | |
//! | reserve q | | + q | | `INSUFFICIENT_STOCK` when available < q |
//! | release q | | − q | | `RESERVATION_EXCEEDED` when q > reserved |
//! | commit q | − q | − q | + q | `RESERVATION_EXCEEDED` when q > reserved |
//! | adjust δ ≠ 0 | + δ | | | `INSUFFICIENT_STOCK` below reserved |
//! | damage q | − q | | | `INSUFFICIENT_STOCK` below reserved |
//! | return q | + q | | | |
//! | transfer q | − q here, + q there | | | `INSUFFICIENT_STOCK` below reserved |
//!
//! Every quantity must be > 0 (`INVALID_QUANTITY`); a result beyond `i64` is `INVALID_QUANTITY` too.
//! Check order: quantity, then other input (reason, cost, destination), then stock.

use shared_kernel::Money;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::WarehouseError;
use crate::inventory::Inventory;
use crate::movement::{MovementType, ReferenceType, StockMovement, StockMovementRecord};
use crate::quantities::Quantities;
use crate::text;

/// Longest reason a movement keeps, in characters after trimming; longer is `VALIDATION_ERROR`.
pub const MAX_REASON_CHARS: usize = 500;

/// When and by whom (a user id; `None` for the system, e.g. the order-event handlers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    /// The operation's instant: the movement's `created_at` and the record's `updated_at`.
    pub at: OffsetDateTime,
    /// The user acting, recorded as the movement's `created_by`; `None` for the system.
    pub by: Option<Uuid>,
}

/// Stock arriving at a record (`POST /inventory/:id/receive`), for [`Inventory::receive`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receipt {
    /// Units received; must be > 0.
    pub quantity: i64,
    /// Cost per unit (cents ≥ 0) in the currency it was paid in; `total_cost = unit_cost × quantity`.
    pub unit_cost: Option<Money>,
    /// What the stock came with (e.g. `purchase_order`); defaults to `manual`.
    pub reference_type: Option<ReferenceType>,
    /// The document it came with, e.g. the purchase order's id.
    pub reference_id: Option<Uuid>,
    /// A note for people, up to [`MAX_REASON_CHARS`]; blank is `None`.
    pub reason: Option<String>,
}

impl Receipt {
    /// A plain receipt of `quantity` with no cost or reference.
    pub fn of(quantity: i64) -> Self {
        Self { quantity, unit_cost: None, reference_type: None, reference_id: None, reason: None }
    }
}

/// The result of one operation on one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InventoryChange {
    /// The record to write (`updated_at` = the stamp's time).
    pub inventory: Inventory,
    /// The quantities it was computed from: the compare-and-set condition.
    pub before: Quantities,
    /// The movement to append in the same transaction.
    pub movement: StockMovement,
}

/// A transfer writes one movement at each end, in one transaction. Both movements carry
/// `reference_type = transfer` and the same fresh `reference_id`, which links the pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferChange {
    /// The source record, on hand − q, with its Transfer movement.
    pub from: InventoryChange,
    /// The destination record, on hand + q, with its Transfer movement.
    pub to: InventoryChange,
}

/// What a write answers about the records it shows, with each one's `quantity_incoming` (what open
/// purchase orders still expect at its location and transfers in transit bring there): `incoming`
/// is one figure, or one per record (`[i64; 2]` for both ends of a transfer). The port reads it in
/// the transaction of the write, so a committed change is never answered with the error of a read
/// made after it (docs/purchasing-and-transfers.md). Reads through to `value`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WithIncoming<T, I = i64> {
    /// The record, or the change, as written.
    pub value: T,
    /// Its records' incoming stock.
    pub incoming: I,
}

impl<T, I> WithIncoming<T, I> {
    /// `value` with `incoming`.
    pub fn new(value: T, incoming: I) -> Self {
        Self { value, incoming }
    }
}

impl<T, I> std::ops::Deref for WithIncoming<T, I> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// The movement-specific part of an operation.
struct Move {
    kind: MovementType,
    quantity: i64,
    reference_type: ReferenceType,
    reference_id: Option<Uuid>,
    reason: Option<String>,
    unit_cost: Option<Money>,
}

impl Move {
    fn new(kind: MovementType, quantity: i64, reference_type: ReferenceType, reference_id: Option<Uuid>) -> Self {
        Self { kind, quantity, reference_type, reference_id, reason: None, unit_cost: None }
    }

    fn for_order(kind: MovementType, quantity: i64, order_id: Uuid) -> Self {
        Self::new(kind, quantity, ReferenceType::Order, Some(order_id))
    }
}

fn positive(quantity: i64) -> Result<i64, WarehouseError> {
    if quantity > 0 {
        Ok(quantity)
    } else {
        Err(WarehouseError::InvalidQuantity)
    }
}

fn plus(a: i64, b: i64) -> Result<i64, WarehouseError> {
    a.checked_add(b).ok_or(WarehouseError::QuantityOutOfRange)
}

fn minus(a: i64, b: i64) -> Result<i64, WarehouseError> {
    a.checked_sub(b).ok_or(WarehouseError::QuantityOutOfRange)
}

fn reason_required(reason: &str) -> Result<Option<String>, WarehouseError> {
    text::required(reason, "reason", MAX_REASON_CHARS).map(Some)
}

impl Inventory {
    /// Checks the invariant on the result and builds the change with its movement.
    fn apply(&self, after: Quantities, mv: Move, stamp: Stamp) -> Result<InventoryChange, WarehouseError> {
        let before = self.quantities();
        if !after.is_consistent() {
            return Err(WarehouseError::InsufficientStock { requested: mv.quantity, available: before.available() });
        }
        let (unit_cost, total_cost, currency) = match mv.unit_cost {
            None => (None, None, None),
            Some(cost) => {
                if cost.cents < 0 {
                    return Err(WarehouseError::Validation { field: "unit_cost", message: "must be 0 or more" });
                }
                let total = cost
                    .cents
                    .checked_mul(mv.quantity)
                    .ok_or(WarehouseError::Validation { field: "unit_cost", message: "total cost is out of range" })?;
                (Some(cost.cents), Some(total), Some(cost.currency))
            }
        };
        let movement = StockMovement::new(StockMovementRecord {
            id: shared_kernel::new_id(),
            inventory_id: self.id,
            product_id: self.product_id,
            location_id: self.location_id,
            movement_type: mv.kind,
            quantity: mv.quantity,
            quantity_before: before.on_hand,
            quantity_after: after.on_hand,
            reserved_before: before.reserved,
            reserved_after: after.reserved,
            unit_cost,
            total_cost,
            currency,
            reference_type: mv.reference_type,
            reference_id: mv.reference_id,
            reason: mv.reason,
            created_by: stamp.by,
            created_at: stamp.at,
        });
        Ok(InventoryChange { inventory: self.with_quantities(after, stamp.at), before, movement })
    }

    /// Stock arrives: on hand + q (a Receipt). `INVALID_QUANTITY` unless q > 0; `VALIDATION_ERROR` on a
    /// long reason or a negative or overflowing cost.
    pub fn receive(&self, receipt: Receipt, stamp: Stamp) -> Result<InventoryChange, WarehouseError> {
        let q = positive(receipt.quantity)?;
        let reason = text::optional(receipt.reason.as_deref(), "reason", MAX_REASON_CHARS)?;
        let before = self.quantities();
        let after = Quantities { on_hand: plus(before.on_hand, q)?, ..before };
        let reference_type = receipt.reference_type.unwrap_or(ReferenceType::Manual);
        let mv = Move {
            reason,
            unit_cost: receipt.unit_cost,
            ..Move::new(MovementType::Receipt, q, reference_type, receipt.reference_id)
        };
        self.apply(after, mv, stamp)
    }

    /// Holds q for an order: reserved + q (a Reservation referencing the order); never oversells:
    /// `INSUFFICIENT_STOCK` when available < q.
    pub fn reserve(&self, quantity: i64, order_id: Uuid, stamp: Stamp) -> Result<InventoryChange, WarehouseError> {
        let q = positive(quantity)?;
        let before = self.quantities();
        if before.available() < q {
            return Err(WarehouseError::InsufficientStock { requested: q, available: before.available() });
        }
        let after = Quantities { reserved: plus(before.reserved, q)?, ..before };
        self.apply(after, Move::for_order(MovementType::Reservation, q, order_id), stamp)
    }

    /// Gives back q of a reservation: reserved − q (a ReservationRelease referencing the order);
    /// `RESERVATION_EXCEEDED` when q > reserved.
    pub fn release(&self, quantity: i64, order_id: Uuid, stamp: Stamp) -> Result<InventoryChange, WarehouseError> {
        let q = positive(quantity)?;
        let before = self.quantities();
        if q > before.reserved {
            return Err(WarehouseError::ReservationExceeded { requested: q, reserved: before.reserved });
        }
        let after = Quantities { reserved: minus(before.reserved, q)?, ..before };
        self.apply(after, Move::for_order(MovementType::ReservationRelease, q, order_id), stamp)
    }

    /// Ships q of a reservation: on hand − q, reserved − q, committed + q (a Commit referencing the
    /// order); `RESERVATION_EXCEEDED` when q > reserved.
    pub fn commit(&self, quantity: i64, order_id: Uuid, stamp: Stamp) -> Result<InventoryChange, WarehouseError> {
        let q = positive(quantity)?;
        let before = self.quantities();
        if q > before.reserved {
            return Err(WarehouseError::ReservationExceeded { requested: q, reserved: before.reserved });
        }
        let after = Quantities {
            on_hand: minus(before.on_hand, q)?,
            reserved: minus(before.reserved, q)?,
            committed: plus(before.committed, q)?,
        };
        self.apply(after, Move::for_order(MovementType::Commit, q, order_id), stamp)
    }

    /// Corrects on hand by `delta` (≠ 0) with a required reason; the movement's quantity is |delta|.
    /// `INSUFFICIENT_STOCK` when on hand would drop below reserved.
    pub fn adjust(&self, delta: i64, reason: &str, stamp: Stamp) -> Result<InventoryChange, WarehouseError> {
        if delta == 0 {
            return Err(WarehouseError::InvalidQuantity);
        }
        let q = delta.checked_abs().ok_or(WarehouseError::QuantityOutOfRange)?;
        let reason = reason_required(reason)?;
        let before = self.quantities();
        let after = Quantities { on_hand: plus(before.on_hand, delta)?, ..before };
        let mv = Move { reason, ..Move::new(MovementType::Adjustment, q, ReferenceType::Manual, None) };
        self.apply(after, mv, stamp)
    }

    /// Writes off q damaged units with a required reason: on hand − q; `INSUFFICIENT_STOCK` when on
    /// hand would drop below reserved (reserved units cannot be written off).
    pub fn damage(&self, quantity: i64, reason: &str, stamp: Stamp) -> Result<InventoryChange, WarehouseError> {
        let q = positive(quantity)?;
        let reason = reason_required(reason)?;
        let before = self.quantities();
        let after = Quantities { on_hand: minus(before.on_hand, q)?, ..before };
        let mv = Move { reason, ..Move::new(MovementType::Damage, q, ReferenceType::Manual, None) };
        self.apply(after, mv, stamp)
    }

    /// Takes back q returned units (from a customer): on hand + q; references the order when given.
    pub fn return_stock(
        &self,
        quantity: i64,
        order_id: Option<Uuid>,
        reason: Option<&str>,
        stamp: Stamp,
    ) -> Result<InventoryChange, WarehouseError> {
        let q = positive(quantity)?;
        let reason = text::optional(reason, "reason", MAX_REASON_CHARS)?;
        let before = self.quantities();
        let after = Quantities { on_hand: plus(before.on_hand, q)?, ..before };
        let reference_type = if order_id.is_some() { ReferenceType::Order } else { ReferenceType::Manual };
        let mv = Move { reason, ..Move::new(MovementType::Return, q, reference_type, order_id) };
        self.apply(after, mv, stamp)
    }

    /// Moves q units of the same product to another location's record.
    ///
    /// When the destination has no record yet, build one with [`Inventory::create`] (no initial stock)
    /// and pass it: the adapter inserts it `ON CONFLICT DO NOTHING` before its compare-and-set, so a
    /// concurrently created record makes the transfer `Stale` instead of losing stock.
    pub fn transfer(&self, to: &Inventory, quantity: i64, stamp: Stamp) -> Result<TransferChange, WarehouseError> {
        let q = positive(quantity)?;
        if to.product_id != self.product_id {
            return Err(WarehouseError::Validation {
                field: "to_location_id",
                message: "the destination record holds another product",
            });
        }
        if to.location_id == self.location_id || to.id == self.id {
            return Err(WarehouseError::Validation { field: "to_location_id", message: "must differ from the source" });
        }
        let transfer_id = Some(shared_kernel::new_id());
        let source = self.quantities();
        let source_after = Quantities { on_hand: minus(source.on_hand, q)?, ..source };
        let from = self.apply(
            source_after,
            Move::new(MovementType::Transfer, q, ReferenceType::Transfer, transfer_id),
            stamp,
        )?;
        let target = to.quantities();
        let target_after = Quantities { on_hand: plus(target.on_hand, q)?, ..target };
        let to =
            to.apply(target_after, Move::new(MovementType::Transfer, q, ReferenceType::Transfer, transfer_id), stamp)?;
        Ok(TransferChange { from, to })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::tests::{at, stamp, stock};
    use crate::inventory::InventoryRecord;
    use shared_kernel::CurrencyCode;

    const ORDER: Uuid = Uuid::from_u128(500);

    fn q(on_hand: i64, reserved: i64, committed: i64) -> Quantities {
        Quantities { on_hand, reserved, committed }
    }

    /// Asserts the new quantities and the movement's type, quantity and before/after fields.
    fn check(change: &InventoryChange, before: Quantities, after: Quantities, kind: MovementType, quantity: i64) {
        assert_eq!(change.before, before);
        assert_eq!(change.inventory.quantities(), after);
        assert_eq!(change.inventory.updated_at, stamp().at);
        let m = &change.movement;
        assert_eq!((m.movement_type, m.quantity), (kind, quantity));
        assert_eq!((m.quantity_before, m.quantity_after), (before.on_hand, after.on_hand));
        assert_eq!((m.reserved_before, m.reserved_after), (before.reserved, after.reserved));
        assert_eq!(
            (m.inventory_id, m.product_id, m.location_id),
            (change.inventory.id, change.inventory.product_id, change.inventory.location_id)
        );
        assert_eq!((m.created_at, m.created_by), (stamp().at, stamp().by));
        assert!(m.quantity > 0);
    }

    #[test]
    fn receive_adds_on_hand_with_cost() {
        let usd = CurrencyCode::parse("USD").expect("valid");
        let receipt = Receipt {
            unit_cost: Some(Money::new(150, usd)),
            reference_type: Some(ReferenceType::PurchaseOrder),
            reference_id: Some(Uuid::from_u128(77)),
            reason: Some(" delivery ".into()),
            ..Receipt::of(4)
        };
        let change = stock(10, 3, 1).receive(receipt, stamp()).expect("valid");
        check(&change, q(10, 3, 1), q(14, 3, 1), MovementType::Receipt, 4);
        let m = &change.movement;
        assert_eq!((m.unit_cost, m.total_cost, m.currency), (Some(150), Some(600), Some(usd)));
        assert_eq!((m.reference_type, m.reference_id), (ReferenceType::PurchaseOrder, Some(Uuid::from_u128(77))));
        assert_eq!(m.reason.as_deref(), Some("delivery"));
        let plain = stock(0, 0, 0).receive(Receipt::of(1), stamp()).expect("valid");
        assert_eq!((plain.movement.reference_type, plain.movement.unit_cost), (ReferenceType::Manual, None));
    }

    #[test]
    fn receive_refusals() {
        let usd = CurrencyCode::parse("USD").expect("valid");
        let inv = stock(10, 0, 0);
        assert_eq!(inv.receive(Receipt::of(0), stamp()), Err(WarehouseError::InvalidQuantity));
        assert_eq!(inv.receive(Receipt::of(-3), stamp()), Err(WarehouseError::InvalidQuantity));
        assert_eq!(stock(i64::MAX, 0, 0).receive(Receipt::of(1), stamp()), Err(WarehouseError::QuantityOutOfRange));
        let negative = Receipt { unit_cost: Some(Money::new(-1, usd)), ..Receipt::of(1) };
        assert_eq!(inv.receive(negative, stamp()).map_err(|e| e.field()), Err(Some("unit_cost")));
        let huge = Receipt { unit_cost: Some(Money::new(i64::MAX, usd)), ..Receipt::of(2) };
        assert_eq!(inv.receive(huge, stamp()).map_err(|e| e.field()), Err(Some("unit_cost")));
        let long = Receipt { reason: Some("r".repeat(MAX_REASON_CHARS + 1)), ..Receipt::of(1) };
        assert_eq!(inv.receive(long, stamp()).map_err(|e| e.field()), Err(Some("reason")));
    }

    #[test]
    fn reserve_up_to_available() {
        let change = stock(10, 3, 0).reserve(7, ORDER, stamp()).expect("exactly available");
        check(&change, q(10, 3, 0), q(10, 10, 0), MovementType::Reservation, 7);
        assert_eq!(change.inventory.quantity_available(), 0);
        assert_eq!((change.movement.reference_type, change.movement.reference_id), (ReferenceType::Order, Some(ORDER)));
        assert_eq!(
            stock(10, 3, 0).reserve(8, ORDER, stamp()),
            Err(WarehouseError::InsufficientStock { requested: 8, available: 7 })
        );
        assert_eq!(
            stock(0, 0, 0).reserve(1, ORDER, stamp()),
            Err(WarehouseError::InsufficientStock { requested: 1, available: 0 })
        );
        assert_eq!(stock(10, 0, 0).reserve(0, ORDER, stamp()), Err(WarehouseError::InvalidQuantity));
    }

    #[test]
    fn release_up_to_reserved() {
        let change = stock(10, 6, 0).release(6, ORDER, stamp()).expect("all of it");
        check(&change, q(10, 6, 0), q(10, 0, 0), MovementType::ReservationRelease, 6);
        assert_eq!(change.movement.reference_id, Some(ORDER));
        assert_eq!(
            stock(10, 6, 0).release(7, ORDER, stamp()),
            Err(WarehouseError::ReservationExceeded { requested: 7, reserved: 6 })
        );
        assert_eq!(stock(10, 6, 0).release(-1, ORDER, stamp()), Err(WarehouseError::InvalidQuantity));
    }

    #[test]
    fn commit_moves_reserved_to_committed() {
        let change = stock(10, 6, 2).commit(4, ORDER, stamp()).expect("within reservation");
        check(&change, q(10, 6, 2), q(6, 2, 6), MovementType::Commit, 4);
        assert_eq!(change.inventory.quantity_available(), 4, "available is unchanged by a commit");
        assert_eq!(
            stock(10, 3, 0).commit(4, ORDER, stamp()),
            Err(WarehouseError::ReservationExceeded { requested: 4, reserved: 3 })
        );
        assert_eq!(stock(10, 3, 0).commit(0, ORDER, stamp()), Err(WarehouseError::InvalidQuantity));
        assert_eq!(stock(10, 3, i64::MAX).commit(1, ORDER, stamp()), Err(WarehouseError::QuantityOutOfRange));
    }

    #[test]
    fn adjust_both_ways_never_below_reserved() {
        let up = stock(10, 4, 0).adjust(5, "count", stamp()).expect("up");
        check(&up, q(10, 4, 0), q(15, 4, 0), MovementType::Adjustment, 5);
        assert_eq!(up.movement.reason.as_deref(), Some("count"));
        assert_eq!(up.movement.reference_type, ReferenceType::Manual);
        let down = stock(10, 4, 0).adjust(-6, "count", stamp()).expect("down to reserved");
        check(&down, q(10, 4, 0), q(4, 4, 0), MovementType::Adjustment, 6);
        assert_eq!(
            stock(10, 4, 0).adjust(-7, "count", stamp()),
            Err(WarehouseError::InsufficientStock { requested: 7, available: 6 })
        );
        assert_eq!(
            stock(3, 0, 0).adjust(-4, "count", stamp()),
            Err(WarehouseError::InsufficientStock { requested: 4, available: 3 }),
            "never below 0"
        );
        assert_eq!(stock(10, 4, 0).adjust(0, "count", stamp()), Err(WarehouseError::InvalidQuantity));
        assert_eq!(stock(10, 4, 0).adjust(i64::MIN, "count", stamp()), Err(WarehouseError::QuantityOutOfRange));
        assert_eq!(stock(i64::MAX, 0, 0).adjust(1, "count", stamp()), Err(WarehouseError::QuantityOutOfRange));
        assert_eq!(stock(10, 4, 0).adjust(1, "  ", stamp()).map_err(|e| e.field()), Err(Some("reason")));
    }

    #[test]
    fn damage_never_below_reserved() {
        let change = stock(10, 4, 0).damage(6, "crushed", stamp()).expect("down to reserved");
        check(&change, q(10, 4, 0), q(4, 4, 0), MovementType::Damage, 6);
        assert_eq!(change.movement.reason.as_deref(), Some("crushed"));
        assert_eq!(
            stock(10, 4, 0).damage(7, "crushed", stamp()),
            Err(WarehouseError::InsufficientStock { requested: 7, available: 6 })
        );
        assert_eq!(stock(10, 4, 0).damage(0, "crushed", stamp()), Err(WarehouseError::InvalidQuantity));
        assert_eq!(stock(10, 4, 0).damage(1, "", stamp()).map_err(|e| e.field()), Err(Some("reason")));
    }

    #[test]
    fn return_adds_on_hand() {
        let change = stock(2, 1, 5).return_stock(3, Some(ORDER), Some("unwanted"), stamp()).expect("valid");
        check(&change, q(2, 1, 5), q(5, 1, 5), MovementType::Return, 3);
        assert_eq!((change.movement.reference_type, change.movement.reference_id), (ReferenceType::Order, Some(ORDER)));
        assert_eq!(change.inventory.quantity_committed, 5, "committed is history, not reversed");
        let manual = stock(0, 0, 0).return_stock(1, None, None, stamp()).expect("valid");
        assert_eq!((manual.movement.reference_type, manual.movement.reason.clone()), (ReferenceType::Manual, None));
        assert_eq!(stock(0, 0, 0).return_stock(0, None, None, stamp()), Err(WarehouseError::InvalidQuantity));
        assert_eq!(stock(i64::MAX, 0, 0).return_stock(1, None, None, stamp()), Err(WarehouseError::QuantityOutOfRange));
    }

    fn other_location(on_hand: i64) -> Inventory {
        let mut record: InventoryRecord = stock(on_hand, 0, 0).into_record();
        record.id = Uuid::from_u128(11);
        record.location_id = Uuid::from_u128(33);
        Inventory::restore(record)
    }

    #[test]
    fn transfer_writes_both_ends() {
        let change = stock(10, 4, 0).transfer(&other_location(1), 6, stamp()).expect("down to reserved");
        check(&change.from, q(10, 4, 0), q(4, 4, 0), MovementType::Transfer, 6);
        check(&change.to, q(1, 0, 0), q(7, 0, 0), MovementType::Transfer, 6);
        assert_eq!(change.from.movement.reference_type, ReferenceType::Transfer);
        assert!(change.from.movement.reference_id.is_some());
        assert_eq!(change.from.movement.reference_id, change.to.movement.reference_id, "the pair is linked");
        assert_eq!(change.to.movement.location_id, Uuid::from_u128(33));
    }

    #[test]
    fn transfer_refusals() {
        let source = stock(10, 4, 0);
        assert_eq!(
            source.transfer(&other_location(0), 7, stamp()),
            Err(WarehouseError::InsufficientStock { requested: 7, available: 6 })
        );
        assert_eq!(source.transfer(&other_location(0), 0, stamp()), Err(WarehouseError::InvalidQuantity));
        assert_eq!(source.transfer(&source, 1, stamp()).map_err(|e| e.field()), Err(Some("to_location_id")));
        let mut record = other_location(0).into_record();
        record.product_id = Uuid::from_u128(9);
        let other_product = Inventory::restore(record);
        assert_eq!(source.transfer(&other_product, 1, stamp()).map_err(|e| e.field()), Err(Some("to_location_id")));
        assert_eq!(source.transfer(&other_location(i64::MAX), 1, stamp()), Err(WarehouseError::QuantityOutOfRange));
    }

    #[test]
    fn stamp_time_is_used_not_the_clock() {
        let change = stock(1, 0, 0).receive(Receipt::of(1), Stamp { at: at(5), by: None }).expect("valid");
        assert_eq!((change.movement.created_at, change.inventory.updated_at), (at(5), at(5)));
        assert_eq!(change.movement.created_by, None);
    }
}
