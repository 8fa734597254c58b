//! The `PurchaseOrder` aggregate: header, lines and the subtotal it keeps consistent.
//!
//! Fields are read through `Deref` to [`PurchaseOrderRecord`] and changed only by the operations in
//! [`super::lines`] and [`super::lifecycle`], each of which returns a [`PurchaseOrderChange`] instead
//! of mutating in place, so the caller holds both the state it read and the state to write.

use std::ops::Deref;

use serde::Serialize;
use shared_kernel::{CurrencyCode, EventEnvelope};
use time::OffsetDateTime;
use uuid::Uuid;

use super::change::{PurchaseLineChange, PurchaseOrderChange, ReceiptInstruction};
use super::status::PurchaseOrderStatus;
use crate::error::WarehouseError;
use crate::numbers::PurchaseOrderNumber;
use crate::operations::Stamp;
use crate::text;

/// Longest purchase order notes, in characters after trimming.
pub const MAX_PO_NOTES_CHARS: usize = 5000;
/// Longest SKU snapshot a line keeps, in characters after trimming.
pub const MAX_LINE_SKU_CHARS: usize = 64;
/// Longest description (product name) snapshot a line keeps, in characters after trimming.
pub const MAX_LINE_DESCRIPTION_CHARS: usize = 255;

/// The stored and wire shape of a purchase order line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PurchaseOrderLineRecord {
    /// The line's id (UUID v7).
    pub id: Uuid,
    /// The purchase order it belongs to (not on the wire: the line is always shown inside it).
    #[serde(skip)]
    pub purchase_order_id: Uuid,
    /// The product bought.
    pub product_id: Uuid,
    /// The product's SKU when the line was added.
    pub sku: Option<String>,
    /// The product's name when the line was added.
    pub description: Option<String>,
    /// Units ordered, > 0.
    pub quantity_ordered: i64,
    /// Units received so far: `0 ≤ received ≤ ordered` (a database CHECK too).
    pub quantity_received: i64,
    /// Cost of one unit in cents of the purchase order's currency, ≥ 0.
    pub unit_cost: i64,
    /// `quantity_ordered × unit_cost`, in cents.
    pub subtotal: i64,
    /// When the line was added.
    #[serde(skip)]
    pub created_at: OffsetDateTime,
    /// When it last changed.
    #[serde(skip)]
    pub updated_at: OffsetDateTime,
}

/// A line whose invariants hold. Read its fields through `Deref`; change it through the
/// [`PurchaseOrder`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct PurchaseOrderLine(PurchaseOrderLineRecord);

impl Deref for PurchaseOrderLine {
    type Target = PurchaseOrderLineRecord;
    fn deref(&self) -> &PurchaseOrderLineRecord {
        &self.0
    }
}

impl PurchaseOrderLine {
    /// Rebuilds a line from storage without re-validating.
    pub fn restore(record: PurchaseOrderLineRecord) -> Self {
        Self(record)
    }

    /// The stored shape, for the adapter to write.
    pub fn record(&self) -> &PurchaseOrderLineRecord {
        &self.0
    }

    /// Units still expected: ordered − received (≥ 0).
    pub fn outstanding(&self) -> i64 {
        self.quantity_ordered.saturating_sub(self.quantity_received)
    }

    /// Every unit ordered has arrived.
    pub fn is_complete(&self) -> bool {
        self.outstanding() == 0
    }

    pub(super) fn build(
        purchase_order_id: Uuid,
        input: NewPurchaseOrderLine,
        now: OffsetDateTime,
    ) -> Result<Self, WarehouseError> {
        let quantity = positive(input.quantity)?;
        let unit_cost = unit_cost(input.unit_cost)?;
        let sku = text::optional(input.sku.as_deref(), "sku", MAX_LINE_SKU_CHARS)?;
        let description = text::optional(input.description.as_deref(), "description", MAX_LINE_DESCRIPTION_CHARS)?;
        Ok(Self(PurchaseOrderLineRecord {
            id: shared_kernel::new_id(),
            purchase_order_id,
            product_id: input.product_id,
            sku,
            description,
            quantity_ordered: quantity,
            quantity_received: 0,
            unit_cost,
            subtotal: line_subtotal(quantity, unit_cost)?,
            created_at: now,
            updated_at: now,
        }))
    }

    pub(super) fn with(&self, quantity: i64, unit_cost: i64, now: OffsetDateTime) -> Result<Self, WarehouseError> {
        Ok(Self(PurchaseOrderLineRecord {
            quantity_ordered: quantity,
            unit_cost,
            subtotal: line_subtotal(quantity, unit_cost)?,
            updated_at: now,
            ..self.0.clone()
        }))
    }

    pub(super) fn received(&self, quantity: i64, now: OffsetDateTime) -> Self {
        Self(PurchaseOrderLineRecord {
            // ≤ ordered, checked by the caller, so no overflow.
            quantity_received: self.quantity_received.saturating_add(quantity),
            updated_at: now,
            ..self.0.clone()
        })
    }
}

pub(super) fn positive(quantity: i64) -> Result<i64, WarehouseError> {
    if quantity > 0 {
        Ok(quantity)
    } else {
        Err(WarehouseError::InvalidQuantity)
    }
}

pub(super) fn unit_cost(cents: i64) -> Result<i64, WarehouseError> {
    if cents >= 0 {
        Ok(cents)
    } else {
        Err(WarehouseError::Validation { field: "unit_cost", message: "must be 0 or more" })
    }
}

fn line_subtotal(quantity: i64, unit_cost: i64) -> Result<i64, WarehouseError> {
    quantity.checked_mul(unit_cost).ok_or(WarehouseError::Validation { field: "subtotal", message: "is out of range" })
}

fn order_subtotal(lines: &[PurchaseOrderLine]) -> Result<i64, WarehouseError> {
    lines.iter().try_fold(0i64, |sum, line| {
        sum.checked_add(line.subtotal)
            .ok_or(WarehouseError::Validation { field: "subtotal", message: "is out of range" })
    })
}

/// A line to add (`POST /purchase-orders/{id}/lines`, or `lines` at creation), with the product's
/// snapshot the handler read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPurchaseOrderLine {
    /// The product to buy; whether it exists is the handler's question.
    pub product_id: Uuid,
    /// Units to order, > 0 (`INVALID_QUANTITY`).
    pub quantity: i64,
    /// Cents of the purchase order's currency per unit, ≥ 0 (`VALIDATION_ERROR` on `unit_cost`).
    pub unit_cost: i64,
    /// The product's SKU now; blank is `None`.
    pub sku: Option<String>,
    /// The product's name now; blank is `None`.
    pub description: Option<String>,
}

/// `PUT /purchase-orders/{id}/lines/{line_id}`: `{quantity?, unit_cost?}`; an absent field stays.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PurchaseLineUpdate {
    /// A new ordered quantity, > 0.
    pub quantity: Option<i64>,
    /// A new unit cost, ≥ 0.
    pub unit_cost: Option<i64>,
}

/// The stored and wire shape of a purchase order, lines included.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PurchaseOrderRecord {
    /// The purchase order's id (UUID v7); also the aggregate id of its events and the `reference_id`
    /// of its receipts' movements.
    pub id: Uuid,
    /// `PO-<year>-<6 digits>`; never changes.
    pub po_number: PurchaseOrderNumber,
    /// The supplier it is placed with.
    pub supplier_id: Uuid,
    /// Where the stock is delivered (every receipt lands there).
    pub location_id: Uuid,
    /// The currency of every unit cost.
    pub currency: CurrencyCode,
    /// Where it is in its lifecycle.
    pub status: PurchaseOrderStatus,
    /// The lines, in the order they were added.
    pub lines: Vec<PurchaseOrderLine>,
    /// Σ of the lines' subtotals, in cents.
    pub subtotal: i64,
    /// When the supplier is expected to deliver, as the creator said.
    #[serde(with = "time::serde::rfc3339::option")]
    pub expected_at: Option<OffsetDateTime>,
    /// Free text for people.
    pub notes: Option<String>,
    /// When it was submitted (ordered).
    #[serde(with = "time::serde::rfc3339::option")]
    pub submitted_at: Option<OffsetDateTime>,
    /// When its last outstanding unit arrived (set with status `received`).
    #[serde(with = "time::serde::rfc3339::option")]
    pub received_at: Option<OffsetDateTime>,
    /// When it was cancelled.
    #[serde(with = "time::serde::rfc3339::option")]
    pub cancelled_at: Option<OffsetDateTime>,
    /// When it was closed short.
    #[serde(with = "time::serde::rfc3339::option")]
    pub closed_at: Option<OffsetDateTime>,
    /// The user who created it; `None` for the system.
    pub created_by: Option<Uuid>,
    /// When it was created (its number's year is this instant's year).
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When anything about it last changed.
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// The stored version: 1 at creation, +1 per saved change; the compare-and-set condition.
    #[serde(skip)]
    pub version: i64,
}

/// A purchase order whose invariants hold: the subtotal matches the lines, `0 ≤ received ≤ ordered`
/// on every line, the timestamps match the status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct PurchaseOrder(PurchaseOrderRecord);

impl Deref for PurchaseOrder {
    type Target = PurchaseOrderRecord;
    fn deref(&self) -> &PurchaseOrderRecord {
        &self.0
    }
}

/// The most lines one purchase order holds (the create body's bound; `add_line` keeps it too).
pub const MAX_PO_LINES: usize = 200;

/// `VALIDATION_ERROR` on `lines`: past [`MAX_PO_LINES`].
pub(crate) fn too_many_lines() -> WarehouseError {
    WarehouseError::Validation { field: "lines", message: "a purchase order holds at most 200 lines" }
}

impl PurchaseOrder {
    /// Rebuilds a purchase order from storage. The database keeps the invariants; nothing is
    /// re-validated.
    pub fn restore(record: PurchaseOrderRecord) -> Self {
        Self(record)
    }

    /// The stored shape, for the adapter to write.
    pub fn record(&self) -> &PurchaseOrderRecord {
        &self.0
    }

    /// The stored shape, taken out of the purchase order.
    pub fn into_record(self) -> PurchaseOrderRecord {
        self.0
    }

    /// The line with this id, if the purchase order has it.
    pub fn line(&self, line_id: Uuid) -> Option<&PurchaseOrderLine> {
        self.lines.iter().find(|l| l.id == line_id)
    }

    /// Units of `product_id` this purchase order still expects (0 unless it [expects
    /// stock](PurchaseOrderStatus::expects_stock)): its part of the location's `quantity_incoming`.
    pub fn incoming(&self, product_id: Uuid) -> i64 {
        if !self.status.expects_stock() {
            return 0;
        }
        self.lines
            .iter()
            .filter(|l| l.product_id == product_id)
            .fold(0i64, |sum, l| sum.saturating_add(l.outstanding()))
    }

    /// A copy to change: `updated_at = now`, next version.
    pub(super) fn next_record(&self, now: OffsetDateTime) -> PurchaseOrderRecord {
        PurchaseOrderRecord { updated_at: now, version: self.version.saturating_add(1), ..self.0.clone() }
    }

    /// Wraps a changed record, its subtotal recomputed, as a change computed from `self`.
    pub(super) fn change(
        &self,
        mut next: PurchaseOrderRecord,
        line: Option<PurchaseLineChange>,
        receipts: Vec<ReceiptInstruction>,
        events: Vec<EventEnvelope>,
    ) -> Result<PurchaseOrderChange, WarehouseError> {
        next.subtotal = order_subtotal(&next.lines)?;
        Ok(PurchaseOrderChange {
            purchase_order: PurchaseOrder(next),
            expected_version: self.version,
            expected_status: self.status,
            line,
            receipts,
            events,
        })
    }
}

/// `POST /purchase-orders`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewPurchaseOrder {
    /// The supplier; whether it exists (and is active) is the handler's question.
    pub supplier_id: Uuid,
    /// The delivery location; whether it exists is the handler's question.
    pub location_id: Uuid,
    /// The currency of every unit cost; whether it is an active code is the handler's question.
    pub currency: CurrencyCode,
    /// When delivery is expected.
    pub expected_at: Option<OffsetDateTime>,
    /// Up to [`MAX_PO_NOTES_CHARS`]; blank is `None`.
    pub notes: Option<String>,
    /// Lines to start with (possibly none).
    pub lines: Vec<NewPurchaseOrderLine>,
}

/// A validated purchase order without a number yet: the adapter allocates the number inside its
/// create transaction and calls [`PurchaseOrderDraft::into_purchase_order`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurchaseOrderDraft {
    id: Uuid,
    input: NewPurchaseOrder,
    lines: Vec<PurchaseOrderLine>,
    subtotal: i64,
    stamp: Stamp,
}

impl PurchaseOrderDraft {
    /// Validates the notes and every line as [`PurchaseOrder::add_line`] would (the first refused
    /// line refuses the whole purchase order; `lines[i]` is for the handler to name).
    pub fn new(input: NewPurchaseOrder, stamp: Stamp) -> Result<Self, WarehouseError> {
        let id = shared_kernel::new_id();
        let notes = text::optional(input.notes.as_deref(), "notes", MAX_PO_NOTES_CHARS)?;
        if input.lines.len() > MAX_PO_LINES {
            return Err(too_many_lines());
        }
        let lines = input
            .lines
            .iter()
            .cloned()
            .map(|line| PurchaseOrderLine::build(id, line, stamp.at))
            .collect::<Result<Vec<_>, _>>()?;
        let subtotal = order_subtotal(&lines)?;
        Ok(Self { id, input: NewPurchaseOrder { notes, lines: Vec::new(), ..input }, lines, subtotal, stamp })
    }

    /// The id the purchase order will have.
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// The year the number's sequence belongs to.
    pub fn year(&self) -> i32 {
        self.stamp.at.year()
    }

    /// The supplier it will be placed with (whose row the adapter's create locks).
    pub fn supplier_id(&self) -> Uuid {
        self.input.supplier_id
    }

    /// The draft purchase order with its number, version 1. Creation raises no event. A number of
    /// another year than the draft's is a bug in the adapter and refused (`VALIDATION_ERROR` on
    /// `po_number`).
    pub fn into_purchase_order(self, number: PurchaseOrderNumber) -> Result<PurchaseOrder, WarehouseError> {
        if number.year() != self.year() {
            return Err(WarehouseError::Validation {
                field: "po_number",
                message: "year must be the year of creation",
            });
        }
        Ok(PurchaseOrder(PurchaseOrderRecord {
            id: self.id,
            po_number: number,
            supplier_id: self.input.supplier_id,
            location_id: self.input.location_id,
            currency: self.input.currency,
            status: PurchaseOrderStatus::Draft,
            lines: self.lines,
            subtotal: self.subtotal,
            expected_at: self.input.expected_at,
            notes: self.input.notes,
            submitted_at: None,
            received_at: None,
            cancelled_at: None,
            closed_at: None,
            created_by: self.stamp.by,
            created_at: self.stamp.at,
            updated_at: self.stamp.at,
            version: 1,
        }))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_780_000_000 + seconds).expect("valid time")
    }

    pub(crate) fn stamp(seconds: i64) -> Stamp {
        Stamp { at: at(seconds), by: Some(Uuid::from_u128(99)) }
    }

    pub(crate) fn usd() -> CurrencyCode {
        CurrencyCode::parse("USD").expect("valid")
    }

    pub(crate) fn new_line(product: u128, quantity: i64, unit_cost: i64) -> NewPurchaseOrderLine {
        NewPurchaseOrderLine {
            product_id: Uuid::from_u128(product),
            quantity,
            unit_cost,
            sku: Some(format!("SKU-{product}")),
            description: Some(" Widget ".into()),
        }
    }

    pub(crate) fn new_po(lines: Vec<NewPurchaseOrderLine>) -> NewPurchaseOrder {
        NewPurchaseOrder {
            supplier_id: Uuid::from_u128(10),
            location_id: Uuid::from_u128(20),
            currency: usd(),
            expected_at: Some(at(86_400)),
            notes: Some("  ring twice ".into()),
            lines,
        }
    }

    #[test]
    fn a_draft_of_more_lines_than_a_purchase_order_holds_is_refused() {
        let lines = (0..=MAX_PO_LINES as u128).map(|i| new_line(i + 1, 1, 1)).collect();
        assert_eq!(PurchaseOrderDraft::new(new_po(lines), stamp(0)).map(|_| ()), Err(too_many_lines()));
    }

    /// A draft numbered 1 with these lines.
    pub(crate) fn draft_with(lines: Vec<NewPurchaseOrderLine>) -> PurchaseOrder {
        let draft = PurchaseOrderDraft::new(new_po(lines), stamp(0)).expect("valid");
        let number = PurchaseOrderNumber::new(draft.year(), 1).expect("valid");
        draft.into_purchase_order(number).expect("same year")
    }

    /// A draft with two lines: 10 × 250 of product 1 and 4 × 1000 of product 2.
    pub(crate) fn two_line_draft() -> PurchaseOrder {
        draft_with(vec![new_line(1, 10, 250), new_line(2, 4, 1_000)])
    }

    #[test]
    fn a_draft_becomes_a_numbered_draft_purchase_order() {
        let po = two_line_draft();
        assert_eq!(po.status, PurchaseOrderStatus::Draft);
        assert_eq!(po.po_number.to_string(), format!("PO-{}-000001", at(0).year()));
        assert_eq!((po.subtotal, po.lines[0].subtotal, po.lines[1].subtotal), (6_500, 2_500, 4_000));
        assert_eq!(po.notes.as_deref(), Some("ring twice"));
        assert_eq!(po.lines[0].description.as_deref(), Some("Widget"));
        assert!(po.lines.iter().all(|l| l.purchase_order_id == po.id && l.quantity_received == 0));
        assert_eq!(
            (po.created_by, po.created_at, po.updated_at, po.version),
            (Some(Uuid::from_u128(99)), at(0), at(0), 1)
        );
        assert_eq!((po.submitted_at, po.received_at, po.cancelled_at, po.closed_at), (None, None, None, None));
        let empty = draft_with(vec![]);
        assert_eq!((empty.lines.len(), empty.subtotal), (0, 0));
    }

    #[test]
    fn a_draft_refuses_bad_input() {
        let refuse = |input: NewPurchaseOrder| PurchaseOrderDraft::new(input, stamp(0)).map(|_| ());
        assert_eq!(refuse(new_po(vec![new_line(1, 0, 1)])), Err(WarehouseError::InvalidQuantity));
        assert_eq!(refuse(new_po(vec![new_line(1, -3, 1)])), Err(WarehouseError::InvalidQuantity));
        assert_eq!(refuse(new_po(vec![new_line(1, 1, -1)])).map_err(|e| e.field()), Err(Some("unit_cost")));
        assert_eq!(refuse(new_po(vec![new_line(1, i64::MAX, 2)])).map_err(|e| e.field()), Err(Some("subtotal")));
        let two_halves = vec![new_line(1, 1, i64::MAX), new_line(2, 1, 1)];
        assert_eq!(refuse(new_po(two_halves)).map_err(|e| e.field()), Err(Some("subtotal")));
        let long = NewPurchaseOrder { notes: Some("n".repeat(MAX_PO_NOTES_CHARS + 1)), ..new_po(vec![]) };
        assert_eq!(refuse(long).map_err(|e| e.field()), Err(Some("notes")));
        let mut line = new_line(1, 1, 1);
        line.sku = Some("s".repeat(MAX_LINE_SKU_CHARS + 1));
        assert_eq!(refuse(new_po(vec![line])).map_err(|e| e.field()), Err(Some("sku")));
        let draft = PurchaseOrderDraft::new(new_po(vec![]), stamp(0)).expect("valid");
        let wrong_year = PurchaseOrderNumber::new(draft.year() - 1, 1).expect("valid");
        assert_eq!(draft.into_purchase_order(wrong_year).map_err(|e| e.field()), Err(Some("po_number")));
    }

    #[test]
    fn serializes_the_wire_fields() {
        let json = serde_json::to_value(two_line_draft()).expect("serializes");
        assert_eq!(json["status"], "draft");
        assert_eq!(json["po_number"], format!("PO-{}-000001", at(0).year()));
        assert_eq!(json["currency"], "USD");
        assert_eq!(json["subtotal"], 6_500);
        let line = &json["lines"][0];
        let mut keys: Vec<&String> = line.as_object().expect("object").keys().collect();
        keys.sort();
        assert_eq!(
            keys,
            [
                "description",
                "id",
                "product_id",
                "quantity_ordered",
                "quantity_received",
                "sku",
                "subtotal",
                "unit_cost"
            ]
        );
        assert!(json["submitted_at"].is_null());
        assert!(json["expected_at"].as_str().expect("string").ends_with('Z'));
        assert!(json.get("version").is_none());
    }
}
