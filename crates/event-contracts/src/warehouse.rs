//! The warehouse's replies to order events (`docs/orders-and-warehouse.md`, "Order flow"). Aggregate
//! id = the order id, so the order context can route them.
//!
//! * `warehouse.stock_reserved` `{order_id, allocations: [{line_id, inventory_id, quantity}]}`
//! * `warehouse.reservation_failed` `{order_id, reason, short_lines: [{line_id, product_id, requested, available}]}`
//! * `warehouse.stock_released` `{order_id, inventories: [{inventory_id, quantity}]}`
//! * `warehouse.stock_committed` `{order_id, inventories: [{inventory_id, quantity}]}`
//!
//! The order side reads any of them as a [`WarehouseReply`].
//!
//! Stock alerts, aggregate id = the inventory record's id; both carry [`StockAlert`]:
//! * `warehouse.stock_low` `{inventory_id, product_id, sku, location_id, quantity_available, reorder_point}`:
//!   a change made the record low (available at or below a reorder point above zero);
//! * `warehouse.stock_replenished` (same payload): a change made a low record no longer low.
//!
//! They are not replies: [`REPLIES`] does not list them, and [`WarehouseReply::from_event`] answers
//! `None` for them.

use serde::{Deserialize, Serialize};
use shared_kernel::{EventEnvelope, PayloadError};
use uuid::Uuid;

use crate::Topic;

/// Reply to `order.confirmed` when every line was reserved ([`StockReserved`]).
pub const STOCK_RESERVED: &str = "warehouse.stock_reserved";
/// Reply to `order.confirmed` when nothing could be reserved ([`ReservationFailed`]).
pub const RESERVATION_FAILED: &str = "warehouse.reservation_failed";
/// Reply to `order.cancelled`: what the order held is available again ([`StockReleased`]).
pub const STOCK_RELEASED: &str = "warehouse.stock_released";
/// Reply to `order.fulfilled`: what the order held left the warehouse ([`StockCommitted`]).
pub const STOCK_COMMITTED: &str = "warehouse.stock_committed";

/// Every reply's name.
pub const REPLIES: [&str; 4] = [STOCK_RESERVED, RESERVATION_FAILED, STOCK_RELEASED, STOCK_COMMITTED];

/// A change made an inventory record low ([`StockAlert`]).
pub const STOCK_LOW: &str = "warehouse.stock_low";
/// A change made a low inventory record no longer low ([`StockAlert`]).
pub const STOCK_REPLENISHED: &str = "warehouse.stock_replenished";

/// The names [`StockAlert`] travels under.
pub const STOCK_ALERTS: [&str; 2] = [STOCK_LOW, STOCK_REPLENISHED];

/// The reason sent with a failure caused by short stock.
pub const INSUFFICIENT_STOCK_REASON: &str = "insufficient stock";

/// `warehouse.stock_reserved`: every line was reserved, from these inventory records.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StockReserved {
    /// The confirmed order the stock is now held for.
    pub order_id: Uuid,
    /// Where each line's units are held; a line may span several records, so several entries.
    pub allocations: Vec<ReservedLine>,
}

/// `quantity` of order line `line_id` is held on inventory record `inventory_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservedLine {
    /// The order line served (its id in `order.confirmed`).
    pub line_id: Uuid,
    /// The inventory record (one product at one location) the units are held on.
    pub inventory_id: Uuid,
    /// Units of the line held on that record, > 0.
    pub quantity: i64,
}

/// `warehouse.reservation_failed`: nothing was reserved; `short_lines` are the lines that could not be
/// served (empty when the failure has another cause).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReservationFailed {
    /// The confirmed order that holds no stock.
    pub order_id: Uuid,
    /// Why, in words for people: [`INSUFFICIENT_STOCK_REASON`] for short stock. The order side keeps
    /// it (with the short lines spelled out) as the order's reservation error.
    pub reason: String,
    /// Every line that could not be served in full; absent on the wire reads as empty.
    #[serde(default)]
    pub short_lines: Vec<ShortLine>,
}

/// A line that asked for `requested` while `available` was left for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShortLine {
    /// The order line that could not be served.
    pub line_id: Uuid,
    /// The product it orders.
    pub product_id: Uuid,
    /// Units the line asked for.
    pub requested: i64,
    /// Units of the product still available for this line (after the earlier lines of the order
    /// took theirs), less than `requested`.
    pub available: i64,
}

/// `warehouse.stock_released`: what the order held was released.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StockReleased {
    /// The cancelled order.
    pub order_id: Uuid,
    /// Units released per inventory record; empty when the order held nothing.
    pub inventories: Vec<InventoryQuantity>,
}

/// `warehouse.stock_committed`: what the order held left the warehouse.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StockCommitted {
    /// The fulfilled order.
    pub order_id: Uuid,
    /// Units committed (taken off hand) per inventory record; empty when the order held nothing.
    pub inventories: Vec<InventoryQuantity>,
}

/// A quantity on one inventory record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct InventoryQuantity {
    /// The inventory record (one product at one location).
    pub inventory_id: Uuid,
    /// Units released or committed there, > 0.
    pub quantity: i64,
}

/// The `data` of `warehouse.stock_low` and `warehouse.stock_replenished`: the record after the change
/// that crossed its reorder point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StockAlert {
    /// The inventory record; also the envelope's aggregate id.
    pub inventory_id: Uuid,
    /// Its product.
    pub product_id: Uuid,
    /// The product's SKU, so a webhook reader needs no second call.
    pub sku: String,
    /// Its location.
    pub location_id: Uuid,
    /// On hand − reserved after the change.
    pub quantity_available: i64,
    /// The record's reorder point (> 0: a record without one is never low).
    pub reorder_point: i64,
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
    /// `warehouse.stock_reserved`: the order's reservation becomes `reserved`.
    Reserved(StockReserved),
    /// `warehouse.reservation_failed`: the order's reservation becomes `failed`, with the reason.
    Failed(ReservationFailed),
    /// `warehouse.stock_released`: the cancelled order's reservation becomes `released`.
    Released(StockReleased),
    /// `warehouse.stock_committed`: the fulfilled order's reservation becomes `committed`.
    Committed(StockCommitted),
}

impl WarehouseReply {
    /// The reply `event` carries; `None` when its name is not one of [`REPLIES`], `Some(Err)` when
    /// the name is a reply's but the `data` does not have its shape.
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

    /// The order it answers (also the envelope's aggregate id).
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
    fn stock_alerts_keep_their_wire_shape_and_are_not_replies() {
        let (inventory, product, location) = (Uuid::from_u128(3), Uuid::from_u128(5), Uuid::from_u128(6));
        let alert = StockAlert {
            inventory_id: inventory,
            product_id: product,
            sku: "W-1".to_owned(),
            location_id: location,
            quantity_available: 4,
            reorder_point: 5,
        };
        round_trips(
            &alert,
            json!({"inventory_id": inventory, "product_id": product, "sku": "W-1", "location_id": location,
                   "quantity_available": 4, "reorder_point": 5}),
        );
        for name in STOCK_ALERTS {
            let event = EventEnvelope::with_payload(name, inventory, datetime!(2026-03-01 10:00 UTC), &alert);
            assert_eq!(event.payload::<StockAlert>().expect("its shape"), alert);
            assert!(!REPLIES.contains(&name));
            assert_eq!(WarehouseReply::from_event(&event), None, "{name} is not a reply");
        }
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
