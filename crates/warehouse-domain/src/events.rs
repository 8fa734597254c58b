//! The warehouse's replies to order events (`docs/orders-and-warehouse.md`, "Order flow"): names and
//! payloads are the shared contracts (`event_contracts::warehouse`), re-exported here; this module
//! builds them from the planning's results. Each envelope's `occurred_at` is the `now` passed in.
//!
//! Aggregate id = the order id, so the order context can route them. Names and data:
//! * `warehouse.stock_reserved` `{order_id, allocations: [{line_id, inventory_id, quantity}]}`
//! * `warehouse.reservation_failed` `{order_id, reason, short_lines: [{line_id, product_id, requested, available}]}`
//! * `warehouse.stock_released` `{order_id, inventories: [{inventory_id, quantity}]}`
//! * `warehouse.stock_committed` `{order_id, inventories: [{inventory_id, quantity}]}`
//!
//! The purchasing, transfer and alert contracts (docs/purchasing-and-transfers.md) are re-exported
//! here too: the stock alerts (`warehouse.stock_low`, `warehouse.stock_replenished`, built by [`crate::alerts::stock_alert_event`]), the purchase
//! orders' events (`event_contracts::purchasing`, built by the purchase order's operations) and the
//! transfers' (`event_contracts::transfers`, built by the transfer's moves).

use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use uuid::Uuid;

pub use event_contracts::purchasing::*;
pub use event_contracts::transfers::*;
pub use event_contracts::warehouse::*;
pub use event_contracts::Topic;

use crate::planning::{self, Allocation, Shortage};

fn held(inventories: &[planning::InventoryQuantity]) -> Vec<InventoryQuantity> {
    inventories.iter().map(|i| InventoryQuantity { inventory_id: i.inventory_id, quantity: i.quantity }).collect()
}

/// `warehouse.stock_reserved` for `order_id`: every line was reserved, from these allocations.
pub fn stock_reserved(order_id: Uuid, allocations: &[Allocation], now: OffsetDateTime) -> EventEnvelope {
    let allocations = allocations
        .iter()
        .map(|a| ReservedLine { line_id: a.line_id, inventory_id: a.inventory_id, quantity: a.quantity })
        .collect();
    StockReserved { order_id, allocations }.to_event(order_id, now)
}

/// `warehouse.reservation_failed` for `order_id`: nothing was reserved, for `reason`
/// (`INSUFFICIENT_STOCK_REASON` for short stock); `short_lines` are the lines that could not be served.
pub fn reservation_failed(
    order_id: Uuid,
    reason: &str,
    short_lines: &[Shortage],
    now: OffsetDateTime,
) -> EventEnvelope {
    let short_lines = short_lines
        .iter()
        .map(|s| ShortLine {
            line_id: s.line_id,
            product_id: s.product_id,
            requested: s.requested,
            available: s.available,
        })
        .collect();
    ReservationFailed { order_id, reason: reason.to_owned(), short_lines }.to_event(order_id, now)
}

/// `warehouse.stock_released` for `order_id`: what the cancelled order held per record (possibly
/// nothing) was released.
pub fn stock_released(
    order_id: Uuid,
    inventories: &[planning::InventoryQuantity],
    now: OffsetDateTime,
) -> EventEnvelope {
    StockReleased { order_id, inventories: held(inventories) }.to_event(order_id, now)
}

/// `warehouse.stock_committed` for `order_id`: what the fulfilled order held per record (possibly
/// nothing) was committed and left the warehouse.
pub fn stock_committed(
    order_id: Uuid,
    inventories: &[planning::InventoryQuantity],
    now: OffsetDateTime,
) -> EventEnvelope {
    StockCommitted { order_id, inventories: held(inventories) }.to_event(order_id, now)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_780_000_000).expect("valid time")
    }

    #[test]
    fn replies_carry_the_plan() {
        let order = Uuid::from_u128(1);
        let allocation = Allocation { line_id: Uuid::from_u128(2), inventory_id: Uuid::from_u128(3), quantity: 4 };
        let event = stock_reserved(order, &[allocation], at());
        assert_eq!((event.name.as_str(), event.aggregate_id, event.occurred_at), (STOCK_RESERVED, order, at()));
        let data: StockReserved = event.payload().expect("parses");
        let reserved = ReservedLine { line_id: allocation.line_id, inventory_id: allocation.inventory_id, quantity: 4 };
        assert_eq!(data, StockReserved { order_id: order, allocations: vec![reserved] });

        let shortage =
            Shortage { line_id: Uuid::from_u128(2), product_id: Uuid::from_u128(5), requested: 4, available: 1 };
        let event = reservation_failed(order, INSUFFICIENT_STOCK_REASON, &[shortage], at());
        assert_eq!(event.name, "warehouse.reservation_failed");
        assert_eq!(event.data["short_lines"][0]["requested"], 4);
        let data: ReservationFailed = event.payload().expect("parses");
        assert_eq!(data.reason, "insufficient stock");
        assert_eq!(
            data.short_lines,
            [ShortLine { line_id: shortage.line_id, product_id: shortage.product_id, requested: 4, available: 1 }]
        );

        let quantity = planning::InventoryQuantity { inventory_id: Uuid::from_u128(3), quantity: 4 };
        let expected = [InventoryQuantity { inventory_id: quantity.inventory_id, quantity: 4 }];
        let released = stock_released(order, &[quantity], at());
        assert_eq!(released.name, STOCK_RELEASED);
        assert_eq!(released.payload::<StockReleased>().expect("parses").inventories, expected);
        let committed = stock_committed(order, &[quantity], at());
        assert_eq!(committed.name, STOCK_COMMITTED);
        assert_eq!(committed.payload::<StockCommitted>().expect("parses").inventories, expected);
    }
}
