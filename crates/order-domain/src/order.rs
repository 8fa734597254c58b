//! The `Order` aggregate: header, lines and the totals it keeps consistent.
//!
//! Fields are read through `Deref` to [`OrderRecord`] and changed only by the operations in
//! [`crate::lines`], [`crate::lifecycle`] and [`crate::reservation`], each of which returns an
//! [`OrderChange`] instead of mutating in place, so the caller always holds both the state it read and
//! the state to write.

use std::ops::Deref;

use serde::Serialize;
use shared_kernel::{CurrencyCode, EventEnvelope};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::change::{LineChange, OrderChange};
use crate::error::OrderError;
use crate::events::{self, ORDER_CREATED};
use crate::line::{NewLine, OrderLine};
use crate::number::OrderNumber;
use crate::status::{OrderStatus, ReservationStatus};
use crate::text;
use crate::totals::Totals;

/// Longest order notes, in characters after trimming; longer is `VALIDATION_ERROR` on `notes`.
pub const MAX_NOTES_CHARS: usize = 5000;

/// The stored shape of an order, lines included (what the adapter reads and writes).
///
/// `version` starts at 1 and grows by one with every saved change; the adapter's conditional
/// `UPDATE … WHERE version = expected` is what settles concurrent writers. It is not part of the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OrderRecord {
    /// The order's id (UUID v7); also the aggregate id of its events.
    pub id: Uuid,
    /// Its [`OrderNumber`] as text, `ORD-<year>-<6 digits>`; never changes.
    pub order_number: String,
    /// The customer (customer management's id) the order is for.
    pub customer_id: Uuid,
    /// The customer's company, when the order is placed for one.
    pub company_id: Option<Uuid>,
    /// Where the order is in its lifecycle (see [`OrderStatus`]).
    pub status: OrderStatus,
    /// The ISO 4217 currency every amount of the order and of its lines is in; fixed at creation.
    pub currency: CurrencyCode,
    /// The lines, in the order they were added.
    pub lines: Vec<OrderLine>,
    /// Σ of the lines' subtotals, in cents.
    pub subtotal: i64,
    /// Tax in cents, ≥ 0, given at creation.
    pub tax: i64,
    /// Discount in cents, ≥ 0, given at creation (may exceed the subtotal).
    pub discount: i64,
    /// `max(0, subtotal + tax − discount)` in cents.
    pub total: i64,
    /// Free text for people, trimmed, up to [`MAX_NOTES_CHARS`]; blank is `None`.
    pub notes: Option<String>,
    /// What the warehouse holds for the order, as far as this context has heard.
    pub reservation_status: ReservationStatus,
    /// Why the warehouse could not reserve (set with reservation `failed`, kept after release).
    pub reservation_error: Option<String>,
    /// When it was confirmed; set from confirmation on.
    #[serde(with = "time::serde::rfc3339::option")]
    pub confirmed_at: Option<OffsetDateTime>,
    /// When it was fulfilled; set only for a fulfilled order.
    #[serde(with = "time::serde::rfc3339::option")]
    pub fulfilled_at: Option<OffsetDateTime>,
    /// When it was cancelled; set only for a cancelled order.
    #[serde(with = "time::serde::rfc3339::option")]
    pub cancelled_at: Option<OffsetDateTime>,
    /// When it was created (its number's year is this instant's year).
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When anything about it (header, lines, reservation) last changed.
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// The stored version: 1 at creation, +1 per saved change; the compare-and-set condition.
    #[serde(skip)]
    pub version: i64,
}

/// An order whose invariants hold: totals match the lines, timestamps match the status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Order(OrderRecord);

impl Deref for Order {
    type Target = OrderRecord;
    fn deref(&self) -> &OrderRecord {
        &self.0
    }
}

impl Order {
    /// Rebuilds an order from storage. The database keeps the invariants; nothing is re-validated.
    pub fn restore(record: OrderRecord) -> Self {
        Self(record)
    }

    /// The stored shape, for the adapter to write.
    pub fn record(&self) -> &OrderRecord {
        &self.0
    }

    /// The stored shape, taken out of the order.
    pub fn into_record(self) -> OrderRecord {
        self.0
    }

    /// The four money figures (subtotal, tax, discount, total) in cents.
    pub fn totals(&self) -> Totals {
        Totals { subtotal: self.subtotal, tax: self.tax, discount: self.discount, total: self.total }
    }

    /// The line with this id, if the order has it.
    pub fn line(&self, line_id: Uuid) -> Option<&OrderLine> {
        self.lines.iter().find(|l| l.id == line_id)
    }

    /// A copy to change: `updated_at = now`, next version.
    pub(crate) fn next_record(&self, now: OffsetDateTime) -> OrderRecord {
        OrderRecord { updated_at: now, version: self.version.saturating_add(1), ..self.0.clone() }
    }

    /// Wraps a changed record after recomputing its totals from its lines.
    pub(crate) fn change(
        &self,
        mut next: OrderRecord,
        line: Option<LineChange>,
        event: Option<&'static str>,
    ) -> Result<OrderChange, OrderError> {
        let totals = Totals::compute(next.lines.iter().map(|l| l.subtotal), next.tax, next.discount)?;
        next.subtotal = totals.subtotal;
        next.total = totals.total;
        let events: Vec<EventEnvelope> =
            event.map(|name| events::order_event(name, &next, next.updated_at)).into_iter().collect();
        Ok(OrderChange {
            order: Order(next),
            expected_version: self.version,
            expected_status: self.status,
            line,
            events,
        })
    }
}

/// What a caller supplies to create an order (`POST /order-mgmt/orders`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewOrder {
    /// The customer the order is for; whether it exists is the handler's question.
    pub customer_id: Uuid,
    /// The customer's company, when ordering for one.
    pub company_id: Option<Uuid>,
    /// The currency of every amount of the order; whether it is an active code is the handler's
    /// question.
    pub currency: CurrencyCode,
    /// Cents, ≥ 0 (the handler defaults it to 0).
    pub tax: i64,
    /// Cents, ≥ 0 (the handler defaults it to 0).
    pub discount: i64,
    /// Free text; trimmed, blank is `None`, longer than [`MAX_NOTES_CHARS`] is refused.
    pub notes: Option<String>,
}

/// A validated order that has no number yet: the adapter allocates the number inside its create
/// transaction and calls [`OrderDraft::into_order`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OrderDraft {
    id: Uuid,
    input: NewOrder,
    totals: Totals,
    /// The `items` variant of creation: lines stored together with the order.
    lines: Vec<OrderLine>,
    created_at: OffsetDateTime,
}

impl OrderDraft {
    /// Validates tax, discount and notes. Whether the currency is an *active* ISO 4217 code and the
    /// customer exists are reference questions for the handler.
    pub fn new(input: NewOrder, now: OffsetDateTime) -> Result<Self, OrderError> {
        let totals = Totals::compute([], input.tax, input.discount)?;
        let notes = text::optional(input.notes, "notes", MAX_NOTES_CHARS)?;
        Ok(Self {
            id: shared_kernel::new_id(),
            input: NewOrder { notes, ..input },
            totals,
            lines: Vec::new(),
            created_at: now,
        })
    }

    /// The order with these lines from the start (`POST /orders` with `items`): each line is checked
    /// as [`Order::add_line`] checks it, and the totals include them. The first refused line refuses
    /// the whole draft.
    pub fn with_lines(self, lines: Vec<NewLine>) -> Result<Self, OrderError> {
        let lines = lines
            .into_iter()
            .map(|line| OrderLine::build(self.id, self.input.currency, line, self.created_at))
            .collect::<Result<Vec<_>, _>>()?;
        let totals = Totals::compute(lines.iter().map(|l| l.subtotal), self.input.tax, self.input.discount)?;
        Ok(Self { lines, totals, ..self })
    }

    /// The id the order will have (fixed when the draft is made).
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// The year the order number's sequence belongs to.
    pub fn year(&self) -> i32 {
        self.created_at.year()
    }

    /// The instant of creation, passed to [`OrderDraft::new`].
    pub fn created_at(&self) -> OffsetDateTime {
        self.created_at
    }

    /// The pending order with its number, version 1, and its `order.created` event.
    ///
    /// A number of another year than the draft's is a bug in the adapter and refused.
    pub fn into_order(self, number: OrderNumber) -> Result<(Order, Vec<EventEnvelope>), OrderError> {
        if number.year() != self.year() {
            return Err(OrderError::Validation { field: "order_number", message: "year must be the year of creation" });
        }
        let record = OrderRecord {
            id: self.id,
            order_number: number.to_string(),
            customer_id: self.input.customer_id,
            company_id: self.input.company_id,
            status: OrderStatus::Pending,
            currency: self.input.currency,
            lines: self.lines,
            subtotal: self.totals.subtotal,
            tax: self.totals.tax,
            discount: self.totals.discount,
            total: self.totals.total,
            notes: self.input.notes,
            reservation_status: ReservationStatus::None,
            reservation_error: None,
            confirmed_at: None,
            fulfilled_at: None,
            cancelled_at: None,
            created_at: self.created_at,
            updated_at: self.created_at,
            version: 1,
        };
        let event = events::order_event(ORDER_CREATED, &record, self.created_at);
        Ok((Order(record), vec![event]))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::line::NewLine;

    pub(crate) fn usd() -> CurrencyCode {
        CurrencyCode::parse("USD").expect("valid")
    }

    pub(crate) fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_780_000_000 + seconds).expect("valid time")
    }

    pub(crate) fn new_order(tax: i64, discount: i64) -> NewOrder {
        NewOrder {
            customer_id: Uuid::from_u128(7),
            company_id: None,
            currency: usd(),
            tax,
            discount,
            notes: Some("  leave at the door ".into()),
        }
    }

    pub(crate) fn pending_order() -> Order {
        let draft = OrderDraft::new(new_order(0, 0), at(0)).expect("valid");
        let number = OrderNumber::new(draft.year(), 1).expect("valid");
        draft.into_order(number).expect("same year").0
    }

    pub(crate) fn new_line(quantity: i64, unit_price: i64) -> NewLine {
        NewLine {
            product_id: Uuid::from_u128(42),
            quantity,
            unit_price,
            currency: usd(),
            description: Some("Widget".into()),
            sku: Some("W-1".into()),
        }
    }

    /// A pending order with one line (2 × 500).
    pub(crate) fn order_with_line() -> Order {
        pending_order().add_line(new_line(2, 500), at(1)).expect("editable").order
    }

    /// Forces any state, for the transition matrix (as if read from storage).
    pub(crate) fn in_state(status: OrderStatus, reservation: ReservationStatus) -> Order {
        let mut record = order_with_line().into_record();
        record.status = status;
        record.reservation_status = reservation;
        Order::restore(record)
    }

    #[test]
    fn draft_becomes_pending_order_with_created_event() {
        let draft = OrderDraft::new(new_order(100, 30), at(0)).expect("valid");
        let id = draft.id();
        let number = OrderNumber::new(draft.year(), 12).expect("valid");
        let (order, events) = draft.into_order(number).expect("same year");
        assert_eq!(order.id, id);
        assert_eq!(order.order_number, format!("ORD-{}-000012", at(0).year()));
        assert_eq!(order.status, OrderStatus::Pending);
        assert_eq!(order.reservation_status, ReservationStatus::None);
        assert_eq!(order.totals(), Totals { subtotal: 0, tax: 100, discount: 30, total: 70 });
        assert_eq!(order.notes.as_deref(), Some("leave at the door"));
        assert_eq!((order.created_at, order.updated_at, order.version), (at(0), at(0), 1));
        assert_eq!(events.len(), 1);
        assert_eq!(events[0].name, "order.created");
        assert_eq!(events[0].aggregate_id, id);
        assert_eq!(events[0].occurred_at, at(0));
        assert_eq!(events[0].data["lines"], serde_json::json!([]));
    }

    #[test]
    fn draft_validates_amounts_and_number_year() {
        assert_eq!(OrderDraft::new(new_order(-1, 0), at(0)).map_err(|e| e.field()), Err(Some("tax")));
        assert_eq!(OrderDraft::new(new_order(0, -5), at(0)).map_err(|e| e.field()), Err(Some("discount")));
        let long = NewOrder { notes: Some("n".repeat(MAX_NOTES_CHARS + 1)), ..new_order(0, 0) };
        assert_eq!(OrderDraft::new(long, at(0)).map_err(|e| e.field()), Err(Some("notes")));
        let draft = OrderDraft::new(new_order(0, 0), at(0)).expect("valid");
        let wrong_year = OrderNumber::new(draft.year() - 1, 1).expect("valid");
        assert_eq!(draft.into_order(wrong_year).map(|_| ()).map_err(|e| e.field()), Err(Some("order_number")));
        let big_discount = OrderDraft::new(new_order(10, 1000), at(0)).expect("valid");
        let number = OrderNumber::new(big_discount.year(), 1).expect("valid");
        assert_eq!(big_discount.into_order(number).expect("same year").0.total, 0);
    }

    #[test]
    fn serializes_wire_fields_without_version() {
        let json = serde_json::to_value(order_with_line()).expect("serializes");
        assert_eq!(json["status"], "pending");
        assert_eq!(json["reservation_status"], "none");
        assert_eq!(json["currency"], "USD");
        assert_eq!(json["subtotal"], 1000);
        assert_eq!(json["lines"][0]["subtotal"], 1000);
        assert!(json["confirmed_at"].is_null());
        assert!(json["created_at"].as_str().expect("string").ends_with('Z'));
        assert!(json.get("version").is_none());
    }

    #[test]
    fn a_draft_with_items_carries_its_lines_and_totals() {
        let line = |quantity, unit_price| NewLine {
            product_id: Uuid::from_u128(9),
            quantity,
            unit_price,
            currency: usd(),
            description: Some("Widget".into()),
            sku: Some("W-1".into()),
        };
        let draft = OrderDraft::new(new_order(100, 50), at(0)).expect("valid");
        let draft = draft.with_lines(vec![line(2, 1_000), line(1, 500)]).expect("valid lines");
        let (order, events) = draft.into_order(OrderNumber::new(at(0).year(), 1).expect("number")).expect("order");
        assert_eq!(order.lines.len(), 2);
        assert_eq!((order.subtotal, order.total), (2_500, 2_550));
        assert!(order.lines.iter().all(|l| l.order_id == order.id));
        assert_eq!(events.len(), 1);
        let bad = OrderDraft::new(new_order(0, 0), at(0)).expect("valid").with_lines(vec![line(0, 1)]);
        assert_eq!(bad.map(|_| ()), Err(OrderError::InvalidQuantity));
        let huge = OrderDraft::new(new_order(0, 0), at(0)).expect("valid").with_lines(vec![line(i64::MAX, 2)]);
        assert!(huge.is_err(), "overflow is refused");
    }
}
