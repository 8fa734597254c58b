//! Events of the order context (decisions §7).
//!
//! `order.created`, `order.confirmed`, `order.cancelled`, `order.fulfilled`; aggregate id = the order
//! id; every one carries [`OrderEventData`]. The warehouse reserves on `order.confirmed`, releases on
//! `order.cancelled` and commits on `order.fulfilled`.

use serde::{Deserialize, Serialize};
use shared_kernel::CurrencyCode;
use uuid::Uuid;

pub const ORDER_CREATED: &str = "order.created";
pub const ORDER_CONFIRMED: &str = "order.confirmed";
pub const ORDER_CANCELLED: &str = "order.cancelled";
pub const ORDER_FULFILLED: &str = "order.fulfilled";

/// The names [`OrderEventData`] travels under.
pub const ORDER_EVENTS: [&str; 4] = [ORDER_CREATED, ORDER_CONFIRMED, ORDER_CANCELLED, ORDER_FULFILLED];

/// The `data` of every order event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderEventData {
    pub order_id: Uuid,
    /// `ORD-<year>-<6 digits>`.
    pub order_number: String,
    pub customer_id: Uuid,
    pub currency: CurrencyCode,
    pub lines: Vec<OrderEventLine>,
}

/// One line of the order as the warehouse needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderEventLine {
    pub line_id: Uuid,
    pub product_id: Uuid,
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
