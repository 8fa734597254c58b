//! What a purchase order operation hands to the repository: the new state, what it was computed from,
//! the line row touched, the stock to receive and the events.
//!
//! The adapter writes a [`PurchaseOrderChange`] in one transaction:
//! 1. `UPDATE purchase_orders SET <header of change.purchase_order>, version = version + 1
//!    WHERE id = $id AND version = change.expected_version AND status = change.expected_status
//!    AND deleted_at IS NULL`: zero rows means another writer won, `Stale` (the caller reloads and
//!    runs the operation again, so the loser gets the precise error, e.g. `OVER_RECEIPT`);
//! 2. the [`PurchaseLineChange`], if any;
//! 3. for a receipt, per [`ReceiptInstruction`]: `UPDATE purchase_order_lines SET quantity_received =
//!    quantity_received + $q WHERE id = $line AND quantity_received + $q <= quantity_ordered` (the
//!    database also has `CHECK (0 <= quantity_received AND quantity_received <= quantity_ordered)`),
//!    then the location's inventory record (made if missing) receives it with
//!    [`crate::Inventory::receive`]`(instruction.receipt())`, one `Receipt` movement per line, and the
//!    stock alert rule ([`crate::alerts`]) runs on the record;
//! 4. every event of `change.events` into the outbox.

use shared_kernel::{EventEnvelope, Money};
use uuid::Uuid;

use super::order::{PurchaseOrder, PurchaseOrderLine};
use super::status::PurchaseOrderStatus;
use crate::movement::ReferenceType;
use crate::operations::Receipt;

/// One decided change of one purchase order, written by
/// [`super::PurchaseOrderRepository::save`] in one transaction.
#[derive(Debug, Clone, PartialEq)]
pub struct PurchaseOrderChange {
    /// The state to write (its `version` is already `expected_version + 1`).
    pub purchase_order: PurchaseOrder,
    /// The `version` the change was computed from.
    pub expected_version: i64,
    /// The status the change was computed from, checked together with `expected_version`.
    pub expected_status: PurchaseOrderStatus,
    /// The one line row a line edit inserts, updates or deletes.
    pub line: Option<PurchaseLineChange>,
    /// A receipt's stock, one instruction per line received (in the order asked); empty otherwise.
    pub receipts: Vec<ReceiptInstruction>,
    /// Events for the outbox, in order.
    pub events: Vec<EventEnvelope>,
}

/// The one line row a [`PurchaseOrderChange`] inserts, updates or deletes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PurchaseLineChange {
    /// A new line to insert.
    Added(PurchaseOrderLine),
    /// A line whose quantity ordered, unit cost or subtotal changed.
    Updated(PurchaseOrderLine),
    /// The line to delete.
    Removed {
        /// The removed line's id.
        line_id: Uuid,
    },
}

/// Stock one receipt brings in for one purchase order line: what the adapter turns into one `Receipt`
/// movement at the purchase order's location.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptInstruction {
    /// The purchase order (the movement's `reference_id`, `reference_type = purchase_order`).
    pub purchase_order_id: Uuid,
    /// The line received.
    pub line_id: Uuid,
    /// Its product.
    pub product_id: Uuid,
    /// The purchase order's location: the record (product, location) receives it, made if missing.
    pub location_id: Uuid,
    /// Units received, > 0 and never above what the line still expected.
    pub quantity: i64,
    /// The line's quantity received before this receipt: the line's write may be conditional on it.
    pub received_before: i64,
    /// The line's unit cost in the purchase order's currency (the movement's `unit_cost`, `currency`).
    pub unit_cost: Money,
    /// The reason given with the receipt, if any (the movement's `reason`).
    pub reason: Option<String>,
}

impl ReceiptInstruction {
    /// The receipt to apply to the inventory record with [`crate::Inventory::receive`].
    pub fn receipt(&self) -> Receipt {
        Receipt {
            quantity: self.quantity,
            unit_cost: Some(self.unit_cost),
            reference_type: Some(ReferenceType::PurchaseOrder),
            reference_id: Some(self.purchase_order_id),
            reason: self.reason.clone(),
        }
    }

    /// The line's quantity received after this receipt.
    pub fn received_after(&self) -> i64 {
        self.received_before.saturating_add(self.quantity)
    }
}
