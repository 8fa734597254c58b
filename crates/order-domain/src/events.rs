//! Integration events of the order context (decisions §7).
//!
//! `order.created`, `order.confirmed`, `order.cancelled`, `order.fulfilled`; aggregate id = order id;
//! data `{order_id, order_number, customer_id, currency, lines: [{line_id, product_id, quantity}]}`.
//! Transitions return them inside [`crate::OrderChange`] so the adapter writes them to the outbox in the
//! same transaction as the change. [`OrderEventData`] lets consumers (the warehouse) parse the data.

use serde::{Deserialize, Serialize};
use serde_json::json;
use shared_kernel::{CurrencyCode, EventEnvelope};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::order::OrderRecord;

pub const ORDER_CREATED: &str = "order.created";
pub const ORDER_CONFIRMED: &str = "order.confirmed";
pub const ORDER_CANCELLED: &str = "order.cancelled";
pub const ORDER_FULFILLED: &str = "order.fulfilled";

/// The `data` of every order event, for consumers to deserialize.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderEventData {
    pub order_id: Uuid,
    pub order_number: String,
    pub customer_id: Uuid,
    pub currency: CurrencyCode,
    pub lines: Vec<OrderEventLine>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderEventLine {
    pub line_id: Uuid,
    pub product_id: Uuid,
    pub quantity: i64,
}

/// Builds the envelope; `occurred_at` is the operation's `now`, not the clock.
pub(crate) fn order_event(name: &'static str, order: &OrderRecord, now: OffsetDateTime) -> EventEnvelope {
    let lines: Vec<serde_json::Value> = order
        .lines
        .iter()
        .map(|l| json!({"line_id": l.id, "product_id": l.product_id, "quantity": l.quantity}))
        .collect();
    let data = json!({
        "order_id": order.id,
        "order_number": order.order_number,
        "customer_id": order.customer_id,
        "currency": order.currency,
        "lines": lines,
    });
    let mut event = EventEnvelope::new(name, order.id, data);
    event.occurred_at = now;
    event
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::tests::{at, order_with_line};

    #[test]
    fn payload_shape_parses_back() {
        let order = order_with_line();
        let event = order_event(ORDER_CONFIRMED, &order, at(9));
        assert_eq!(event.name, "order.confirmed");
        assert_eq!(event.aggregate_id, order.id);
        assert_eq!(event.occurred_at, at(9));
        let mut keys: Vec<&String> = event.data.as_object().expect("object").keys().collect();
        keys.sort();
        assert_eq!(keys, ["currency", "customer_id", "lines", "order_id", "order_number"]);
        let data: OrderEventData = serde_json::from_value(event.data).expect("parses");
        assert_eq!(data.order_id, order.id);
        assert_eq!(data.order_number, order.order_number);
        assert_eq!(data.customer_id, order.customer_id);
        assert_eq!(data.currency, order.currency);
        let line = &order.lines[0];
        assert_eq!(data.lines, [OrderEventLine { line_id: line.id, product_id: line.product_id, quantity: 2 }]);
    }
}
