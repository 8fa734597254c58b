//! The warehouse's replies to order events (decisions §8, "Order flow").
//!
//! Aggregate id = the order id, so the order context can route them. Names and data:
//! * `warehouse.stock_reserved` `{order_id, allocations: [{line_id, inventory_id, quantity}]}`
//! * `warehouse.reservation_failed` `{order_id, reason, short_lines: [{line_id, product_id, requested, available}]}`
//! * `warehouse.stock_released` `{order_id, inventories: [{inventory_id, quantity}]}`
//! * `warehouse.stock_committed` `{order_id, inventories: [{inventory_id, quantity}]}`
//!
//! The order side folds them in with `mark_reserved`, `mark_reservation_failed(reason)`,
//! `mark_released` and `mark_committed`. [`ReplyData`] parses any of them.

use serde::{Deserialize, Serialize};
use serde_json::json;
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::planning::{Allocation, InventoryQuantity, Shortage};

pub const STOCK_RESERVED: &str = "warehouse.stock_reserved";
pub const RESERVATION_FAILED: &str = "warehouse.reservation_failed";
pub const STOCK_RELEASED: &str = "warehouse.stock_released";
pub const STOCK_COMMITTED: &str = "warehouse.stock_committed";

/// The reason sent with a failure caused by short stock.
pub const INSUFFICIENT_STOCK_REASON: &str = "insufficient stock";

/// The data of any reply; fields a reply does not carry are empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplyData {
    pub order_id: Uuid,
    #[serde(default)]
    pub reason: Option<String>,
    #[serde(default)]
    pub allocations: Vec<Allocation>,
    #[serde(default)]
    pub short_lines: Vec<Shortage>,
    #[serde(default)]
    pub inventories: Vec<InventoryQuantity>,
}

fn envelope(name: &'static str, order_id: Uuid, data: serde_json::Value, now: OffsetDateTime) -> EventEnvelope {
    let mut event = EventEnvelope::new(name, order_id, data);
    event.occurred_at = now;
    event
}

pub fn stock_reserved(order_id: Uuid, allocations: &[Allocation], now: OffsetDateTime) -> EventEnvelope {
    envelope(STOCK_RESERVED, order_id, json!({"order_id": order_id, "allocations": allocations}), now)
}

pub fn reservation_failed(
    order_id: Uuid,
    reason: &str,
    short_lines: &[Shortage],
    now: OffsetDateTime,
) -> EventEnvelope {
    let data = json!({"order_id": order_id, "reason": reason, "short_lines": short_lines});
    envelope(RESERVATION_FAILED, order_id, data, now)
}

pub fn stock_released(order_id: Uuid, inventories: &[InventoryQuantity], now: OffsetDateTime) -> EventEnvelope {
    envelope(STOCK_RELEASED, order_id, json!({"order_id": order_id, "inventories": inventories}), now)
}

pub fn stock_committed(order_id: Uuid, inventories: &[InventoryQuantity], now: OffsetDateTime) -> EventEnvelope {
    envelope(STOCK_COMMITTED, order_id, json!({"order_id": order_id, "inventories": inventories}), now)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_780_000_000).expect("valid time")
    }

    #[test]
    fn replies_round_trip() {
        let order = Uuid::from_u128(1);
        let allocation = Allocation { line_id: Uuid::from_u128(2), inventory_id: Uuid::from_u128(3), quantity: 4 };
        let event = stock_reserved(order, &[allocation], at());
        assert_eq!((event.name.as_str(), event.aggregate_id, event.occurred_at), (STOCK_RESERVED, order, at()));
        let data: ReplyData = serde_json::from_value(event.data).expect("parses");
        assert_eq!(data, ReplyData { order_id: order, allocations: vec![allocation], ..ReplyData::default() });

        let shortage =
            Shortage { line_id: Uuid::from_u128(2), product_id: Uuid::from_u128(5), requested: 4, available: 1 };
        let event = reservation_failed(order, INSUFFICIENT_STOCK_REASON, &[shortage], at());
        assert_eq!(event.name, "warehouse.reservation_failed");
        assert_eq!(event.data["short_lines"][0]["requested"], 4);
        let data: ReplyData = serde_json::from_value(event.data).expect("parses");
        assert_eq!(data.reason.as_deref(), Some("insufficient stock"));
        assert_eq!(data.short_lines, [shortage]);

        let held = InventoryQuantity { inventory_id: Uuid::from_u128(3), quantity: 4 };
        for (event, name) in [
            (stock_released(order, &[held], at()), STOCK_RELEASED),
            (stock_committed(order, &[held], at()), STOCK_COMMITTED),
        ] {
            assert_eq!(event.name, name);
            let data: ReplyData = serde_json::from_value(event.data).expect("parses");
            assert_eq!(data.inventories, [held]);
        }
    }
}
