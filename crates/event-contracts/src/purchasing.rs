//! Events of purchase orders. Aggregate id = the purchase
//! order's id.
//!
//! * `purchase_order.submitted`, `purchase_order.cancelled`, `purchase_order.closed`: the purchase
//!   order as it stands after the move, [`PurchaseOrderEventData`];
//! * `purchase_order.received` (each receipt): what that receipt brought in and where the order now
//!   stands, [`PurchaseOrderReceived`].
//!
//! No event is raised when a purchase order is created or its lines change (it is a draft then).

use serde::{Deserialize, Serialize};
use shared_kernel::CurrencyCode;
use uuid::Uuid;

use crate::Topic;

/// A draft with at least one line was sent to its supplier: its lines are now expected at its
/// location (they count as incoming stock there).
pub const PURCHASE_ORDER_SUBMITTED: &str = "purchase_order.submitted";
/// Stock arrived against the purchase order (one event per receipt; [`PurchaseOrderReceived`]).
pub const PURCHASE_ORDER_RECEIVED: &str = "purchase_order.received";
/// A draft, or an ordered purchase order of which nothing arrived, was called off.
pub const PURCHASE_ORDER_CANCELLED: &str = "purchase_order.cancelled";
/// A partially received purchase order was closed short: what is still outstanding is no longer
/// expected.
pub const PURCHASE_ORDER_CLOSED: &str = "purchase_order.closed";

/// The names [`PurchaseOrderEventData`] travels under.
pub const PURCHASE_ORDER_STATUS_EVENTS: [&str; 3] =
    [PURCHASE_ORDER_SUBMITTED, PURCHASE_ORDER_CANCELLED, PURCHASE_ORDER_CLOSED];

/// Every purchase order event's name.
pub const PURCHASE_ORDER_EVENTS: [&str; 4] =
    [PURCHASE_ORDER_SUBMITTED, PURCHASE_ORDER_RECEIVED, PURCHASE_ORDER_CANCELLED, PURCHASE_ORDER_CLOSED];

/// The `data` of `purchase_order.submitted`, `.cancelled` and `.closed`: the purchase order after the
/// move, with every line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurchaseOrderEventData {
    /// The purchase order's id; also the envelope's aggregate id.
    pub purchase_order_id: Uuid,
    /// `PO-<year>-<6 digits>`.
    pub po_number: String,
    /// The supplier it is placed with.
    pub supplier_id: Uuid,
    /// The location the stock is delivered to.
    pub location_id: Uuid,
    /// The ISO 4217 currency of every unit cost.
    pub currency: CurrencyCode,
    /// The status after the move (`ordered`, `cancelled`, `closed`).
    pub status: String,
    /// Σ of the lines' subtotals, in cents of `currency`.
    pub subtotal: i64,
    /// Every line of the purchase order.
    pub lines: Vec<PurchaseOrderEventLine>,
}

/// One line of a purchase order in its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurchaseOrderEventLine {
    /// The line's id.
    pub line_id: Uuid,
    /// The product bought.
    pub product_id: Uuid,
    /// Units ordered, > 0.
    pub quantity_ordered: i64,
    /// Units received so far, `0 ≤ received ≤ ordered`.
    pub quantity_received: i64,
    /// Cost of one unit in cents of the purchase order's currency, ≥ 0.
    pub unit_cost: i64,
}

/// `purchase_order.received`: one receipt against the purchase order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PurchaseOrderReceived {
    /// The purchase order's id; also the envelope's aggregate id.
    pub purchase_order_id: Uuid,
    /// `PO-<year>-<6 digits>`.
    pub po_number: String,
    /// The supplier it is placed with.
    pub supplier_id: Uuid,
    /// The location the stock arrived at.
    pub location_id: Uuid,
    /// The ISO 4217 currency of every unit cost.
    pub currency: CurrencyCode,
    /// The status after the receipt: `partially_received`, or `received` when every line is complete.
    pub status: String,
    /// What this receipt brought in, one entry per line received (in the order they were asked).
    pub received: Vec<ReceivedLine>,
    /// The reason given with the receipt, if any.
    #[serde(default)]
    pub reason: Option<String>,
}

/// Units of one purchase order line received by one receipt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReceivedLine {
    /// The purchase order line.
    pub line_id: Uuid,
    /// Its product.
    pub product_id: Uuid,
    /// Units this receipt brought in, > 0 (one `Receipt` movement of this quantity).
    pub quantity: i64,
    /// Units of the line received in all, this receipt included.
    pub quantity_received: i64,
    /// Units the line ordered.
    pub quantity_ordered: i64,
    /// Cost of one unit in cents of the purchase order's currency (the movement's `unit_cost`).
    pub unit_cost: i64,
}

impl Topic for PurchaseOrderReceived {
    const NAME: &'static str = PURCHASE_ORDER_RECEIVED;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::round_trips;
    use serde_json::json;
    use time::macros::datetime;

    const PO: Uuid = Uuid::from_u128(1);
    const SUPPLIER: Uuid = Uuid::from_u128(2);
    const LOCATION: Uuid = Uuid::from_u128(3);
    const LINE: Uuid = Uuid::from_u128(4);
    const PRODUCT: Uuid = Uuid::from_u128(5);

    fn eur() -> CurrencyCode {
        CurrencyCode::parse("EUR").expect("an ISO 4217 code")
    }

    #[test]
    fn status_events_keep_their_wire_shape() {
        let data = PurchaseOrderEventData {
            purchase_order_id: PO,
            po_number: "PO-2026-000001".to_owned(),
            supplier_id: SUPPLIER,
            location_id: LOCATION,
            currency: eur(),
            status: "ordered".to_owned(),
            subtotal: 1_500,
            lines: vec![PurchaseOrderEventLine {
                line_id: LINE,
                product_id: PRODUCT,
                quantity_ordered: 3,
                quantity_received: 0,
                unit_cost: 500,
            }],
        };
        round_trips(
            &data,
            json!({"purchase_order_id": PO, "po_number": "PO-2026-000001", "supplier_id": SUPPLIER,
                   "location_id": LOCATION, "currency": "EUR", "status": "ordered", "subtotal": 1500,
                   "lines": [{"line_id": LINE, "product_id": PRODUCT, "quantity_ordered": 3,
                              "quantity_received": 0, "unit_cost": 500}]}),
        );
        for name in PURCHASE_ORDER_STATUS_EVENTS {
            let event = shared_kernel::EventEnvelope::with_payload(name, PO, datetime!(2026-03-01 10:00 UTC), &data);
            assert_eq!(event.payload::<PurchaseOrderEventData>().expect("its shape"), data);
            assert!(PURCHASE_ORDER_EVENTS.contains(&name));
        }
    }

    #[test]
    fn a_receipt_keeps_its_wire_shape() {
        let received = PurchaseOrderReceived {
            purchase_order_id: PO,
            po_number: "PO-2026-000001".to_owned(),
            supplier_id: SUPPLIER,
            location_id: LOCATION,
            currency: eur(),
            status: "partially_received".to_owned(),
            received: vec![ReceivedLine {
                line_id: LINE,
                product_id: PRODUCT,
                quantity: 2,
                quantity_received: 2,
                quantity_ordered: 3,
                unit_cost: 500,
            }],
            reason: Some("first pallet".to_owned()),
        };
        round_trips(
            &received,
            json!({"purchase_order_id": PO, "po_number": "PO-2026-000001", "supplier_id": SUPPLIER,
                   "location_id": LOCATION, "currency": "EUR", "status": "partially_received",
                   "received": [{"line_id": LINE, "product_id": PRODUCT, "quantity": 2, "quantity_received": 2,
                                 "quantity_ordered": 3, "unit_cost": 500}],
                   "reason": "first pallet"}),
        );
        let event = received.to_event(PO, datetime!(2026-03-01 10:00 UTC));
        assert_eq!((event.name.as_str(), event.aggregate_id), ("purchase_order.received", PO));
        assert_eq!(PurchaseOrderReceived::from_event(&event).expect("its name").expect("its shape"), received);
        let mut data = event.data.clone();
        data.as_object_mut().expect("an object").remove("reason");
        let without_reason: PurchaseOrderReceived = serde_json::from_value(data).expect("reason may be absent");
        assert_eq!(without_reason.reason, None);
    }
}
