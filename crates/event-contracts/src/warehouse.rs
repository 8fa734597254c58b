//! The warehouse's replies to order events (decisions §8, "Order flow"). Aggregate id = the order id,
//! so the order context can route them.
//!
//! * `warehouse.stock_reserved` `{order_id, allocations: [{line_id, inventory_id, quantity}]}`
//! * `warehouse.reservation_failed` `{order_id, reason, short_lines: [{line_id, product_id, requested, available}]}`
//! * `warehouse.stock_released` `{order_id, inventories: [{inventory_id, quantity}]}`
//! * `warehouse.stock_committed` `{order_id, inventories: [{inventory_id, quantity}]}`
//!
//! The order side reads any of them as a [`WarehouseReply`].

use serde::{Deserialize, Serialize};
use shared_kernel::{EventEnvelope, PayloadError};
use uuid::Uuid;

use crate::Topic;

pub const STOCK_RESERVED: &str = "warehouse.stock_reserved";
pub const RESERVATION_FAILED: &str = "warehouse.reservation_failed";
pub const STOCK_RELEASED: &str = "warehouse.stock_released";
pub const STOCK_COMMITTED: &str = "warehouse.stock_committed";

/// Every reply's name.
pub const REPLIES: [&str; 4] = [STOCK_RESERVED, RESERVATION_FAILED, STOCK_RELEASED, STOCK_COMMITTED];

/// The reason sent with a failure caused by short stock.
pub const INSUFFICIENT_STOCK_REASON: &str = "insufficient stock";

/// `warehouse.stock_reserved`: every line was reserved, from these inventory records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StockReserved {
    pub order_id: Uuid,
    pub allocations: Vec<ReservedLine>,
}

/// `quantity` of order line `line_id` is held on inventory record `inventory_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservedLine {
    pub line_id: Uuid,
    pub inventory_id: Uuid,
    pub quantity: i64,
}

/// `warehouse.reservation_failed`: nothing was reserved; `short_lines` are the lines that could not be
/// served (empty when the failure has another cause).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservationFailed {
    pub order_id: Uuid,
    pub reason: String,
    #[serde(default)]
    pub short_lines: Vec<ShortLine>,
}

/// A line that asked for `requested` while `available` was left for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortLine {
    pub line_id: Uuid,
    pub product_id: Uuid,
    pub requested: i64,
    pub available: i64,
}

/// `warehouse.stock_released`: what the order held was released.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StockReleased {
    pub order_id: Uuid,
    pub inventories: Vec<InventoryQuantity>,
}

/// `warehouse.stock_committed`: what the order held left the warehouse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StockCommitted {
    pub order_id: Uuid,
    pub inventories: Vec<InventoryQuantity>,
}

/// A quantity on one inventory record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InventoryQuantity {
    pub inventory_id: Uuid,
    pub quantity: i64,
}

impl Topic for StockReserved {
    const NAME: &'static str = STOCK_RESERVED;
}

impl Topic for ReservationFailed {
    const NAME: &'static str = RESERVATION_FAILED;
}

impl Topic for StockReleased {
    const NAME: &'static str = STOCK_RELEASED;
}

impl Topic for StockCommitted {
    const NAME: &'static str = STOCK_COMMITTED;
}

/// Any of the four replies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WarehouseReply {
    Reserved(StockReserved),
    Failed(ReservationFailed),
    Released(StockReleased),
    Committed(StockCommitted),
}

impl WarehouseReply {
    /// The reply `event` carries; `None` when it is not a reply.
    pub fn from_event(event: &EventEnvelope) -> Option<Result<Self, PayloadError>> {
        let reply = match event.name.as_str() {
            STOCK_RESERVED => event.payload().map(Self::Reserved),
            RESERVATION_FAILED => event.payload().map(Self::Failed),
            STOCK_RELEASED => event.payload().map(Self::Released),
            STOCK_COMMITTED => event.payload().map(Self::Committed),
            _ => return None,
        };
        Some(reply)
    }

    /// The order it answers.
    pub fn order_id(&self) -> Uuid {
        match self {
            Self::Reserved(r) => r.order_id,
            Self::Failed(r) => r.order_id,
            Self::Released(r) => r.order_id,
            Self::Committed(r) => r.order_id,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::round_trips;
    use serde_json::json;
    use time::macros::datetime;

    const ORDER: Uuid = Uuid::from_u128(1);

    #[test]
    fn replies_keep_their_wire_shape() {
        let (line, inventory, product) = (Uuid::from_u128(2), Uuid::from_u128(3), Uuid::from_u128(5));
        round_trips(
            &StockReserved {
                order_id: ORDER,
                allocations: vec![ReservedLine { line_id: line, inventory_id: inventory, quantity: 4 }],
            },
            json!({"order_id": ORDER, "allocations": [{"line_id": line, "inventory_id": inventory, "quantity": 4}]}),
        );
        round_trips(
            &ReservationFailed {
                order_id: ORDER,
                reason: INSUFFICIENT_STOCK_REASON.to_owned(),
                short_lines: vec![ShortLine { line_id: line, product_id: product, requested: 4, available: 1 }],
            },
            json!({"order_id": ORDER, "reason": "insufficient stock",
                   "short_lines": [{"line_id": line, "product_id": product, "requested": 4, "available": 1}]}),
        );
        let held = vec![InventoryQuantity { inventory_id: inventory, quantity: 4 }];
        let inventories = json!([{"inventory_id": inventory, "quantity": 4}]);
        round_trips(
            &StockReleased { order_id: ORDER, inventories: held.clone() },
            json!({"order_id": ORDER, "inventories": inventories}),
        );
        round_trips(
            &StockCommitted { order_id: ORDER, inventories: held },
            json!({"order_id": ORDER, "inventories": inventories}),
        );
    }

    #[test]
    fn any_reply_is_read_by_its_name() {
        let at = datetime!(2026-03-01 10:00 UTC);
        let failed = ReservationFailed { order_id: ORDER, reason: "no stock".to_owned(), short_lines: vec![] };
        let event = failed.to_event(ORDER, at);
        assert_eq!((event.name.as_str(), event.aggregate_id), ("warehouse.reservation_failed", ORDER));
        let reply = WarehouseReply::from_event(&event).expect("a reply").expect("well formed");
        assert_eq!((reply.order_id(), reply), (ORDER, WarehouseReply::Failed(failed)));

        let released = StockReleased { order_id: ORDER, inventories: vec![] }.to_event(ORDER, at);
        assert!(matches!(WarehouseReply::from_event(&released), Some(Ok(WarehouseReply::Released(_)))));

        let other = EventEnvelope::new("order.confirmed", ORDER, json!({}));
        assert_eq!(WarehouseReply::from_event(&other), None);
        let broken = EventEnvelope::new(STOCK_RESERVED, ORDER, json!({"order_id": "nope"}));
        assert!(matches!(WarehouseReply::from_event(&broken), Some(Err(_))));
        assert_eq!(REPLIES.len(), 4);
    }
}
