//! Events of the order context (`docs/orders-and-warehouse.md`, "Order flow").
//!
//! `order.created`, `order.confirmed`, `order.cancelled`, `order.fulfilled`; aggregate id = the order
//! id; every one carries [`OrderEventData`]. The warehouse reserves on `order.confirmed`, releases on
//! `order.cancelled` and commits on `order.fulfilled`.

use serde::{Deserialize, Serialize};
use shared_kernel::CurrencyCode;
use uuid::Uuid;

/// A new order was stored, pending and possibly already with lines; the warehouse does nothing on it.
pub const ORDER_CREATED: &str = "order.created";
/// A pending order with at least one line was confirmed: the warehouse must reserve every line, all
/// or nothing, and reply `warehouse.stock_reserved` or `warehouse.reservation_failed`.
pub const ORDER_CONFIRMED: &str = "order.confirmed";
/// An order was cancelled: the warehouse releases whatever it holds for it and replies
/// `warehouse.stock_released`.
pub const ORDER_CANCELLED: &str = "order.cancelled";
/// An order with reserved stock was fulfilled: the warehouse commits what it holds (the stock leaves)
/// and replies `warehouse.stock_committed`.
pub const ORDER_FULFILLED: &str = "order.fulfilled";

/// The names [`OrderEventData`] travels under.
pub const ORDER_EVENTS: [&str; 4] = [ORDER_CREATED, ORDER_CONFIRMED, ORDER_CANCELLED, ORDER_FULFILLED];

/// The `data` of every order event: the order as it stands after the change, with its lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderEventData {
    /// The order's id; also the envelope's aggregate id.
    pub order_id: Uuid,
    /// `ORD-<year>-<6 digits>`.
    pub order_number: String,
    /// The customer the order is for.
    pub customer_id: Uuid,
    /// The ISO 4217 currency every price of the order is in.
    pub currency: CurrencyCode,
    /// Every line of the order at the time of the event (empty for an order created without lines).
    pub lines: Vec<OrderEventLine>,
}

/// One line of the order as the warehouse needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderEventLine {
    /// The order line's id; the warehouse's replies name lines by it.
    pub line_id: Uuid,
    /// The product to reserve, release or commit.
    pub product_id: Uuid,
    /// Units ordered, always > 0.
    pub quantity: i64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::round_trips;
    use serde_json::json;
    use shared_kernel::EventEnvelope;
    use time::macros::datetime;

    fn data() -> OrderEventData {
        OrderEventData {
            order_id: Uuid::from_u128(1),
            order_number: "ORD-2026-000001".to_owned(),
            customer_id: Uuid::from_u128(2),
            currency: CurrencyCode::parse("EUR").expect("valid"),
            lines: vec![OrderEventLine { line_id: Uuid::from_u128(3), product_id: Uuid::from_u128(4), quantity: 2 }],
        }
    }

    #[test]
    fn keeps_its_wire_shape() {
        round_trips(
            &data(),
            json!({
                "order_id": Uuid::from_u128(1),
                "order_number": "ORD-2026-000001",
                "customer_id": Uuid::from_u128(2),
                "currency": "EUR",
                "lines": [{"line_id": Uuid::from_u128(3), "product_id": Uuid::from_u128(4), "quantity": 2}],
            }),
        );
        assert_eq!(ORDER_EVENTS, ["order.created", "order.confirmed", "order.cancelled", "order.fulfilled"]);
    }

    #[test]
    fn travels_in_an_envelope_under_each_name() {
        let at = datetime!(2026-03-01 10:00 UTC);
        for name in ORDER_EVENTS {
            let event = EventEnvelope::with_payload(name, Uuid::from_u128(1), at, &data());
            assert_eq!((event.name.as_str(), event.occurred_at), (name, at));
            assert_eq!(event.payload::<OrderEventData>(), Ok(data()));
        }
    }
}
