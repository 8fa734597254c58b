//! Integration events of the order context (`docs/orders-and-warehouse.md`, "Order flow"): the names
//! and the payload are the shared contracts (`event_contracts::orders`), re-exported here; this module
//! builds them from an order.
//!
//! `order.created`, `order.confirmed`, `order.cancelled`, `order.fulfilled`; aggregate id = order id;
//! data `{order_id, order_number, customer_id, currency, lines: [{line_id, product_id, quantity}]}`.
//! Transitions return them inside [`crate::OrderChange`] so the adapter writes them to the outbox in the
//! same transaction as the change.

use shared_kernel::EventEnvelope;
use time::OffsetDateTime;

pub use event_contracts::orders::*;

use crate::order::OrderRecord;

/// The payload of every order event.
pub(crate) fn order_data(order: &OrderRecord) -> OrderEventData {
    OrderEventData {
        order_id: order.id,
        order_number: order.order_number.clone(),
        customer_id: order.customer_id,
        currency: order.currency,
        lines: order
            .lines
            .iter()
            .map(|l| OrderEventLine { line_id: l.id, product_id: l.product_id, quantity: l.quantity })
            .collect(),
    }
}

/// Builds the envelope; `occurred_at` is the operation's `now`, not the clock.
pub(crate) fn order_event(name: &'static str, order: &OrderRecord, now: OffsetDateTime) -> EventEnvelope {
    EventEnvelope::with_payload(name, order.id, now, &order_data(order))
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
        let data: OrderEventData = event.payload().expect("parses");
        assert_eq!(data.order_id, order.id);
        assert_eq!(data.order_number, order.order_number);
        assert_eq!(data.customer_id, order.customer_id);
        assert_eq!(data.currency, order.currency);
        let line = &order.lines[0];
        assert_eq!(data.lines, [OrderEventLine { line_id: line.id, product_id: line.product_id, quantity: 2 }]);
    }
}
