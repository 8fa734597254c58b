//! The warehouse's side of the order flow: what an order event means for stock
//! (docs/orders-and-warehouse.md, "Order flow").
//!
//! | event | use case | reply |
//! |---|---|---|
//! | `order.confirmed` | [`OrderStock::reserve_for_order`]: every line or none | `warehouse.stock_reserved` / `warehouse.reservation_failed` |
//! | `order.cancelled` | [`OrderStock::release_for_order`]: exactly what the order holds | `warehouse.stock_released` |
//! | `order.fulfilled` | [`OrderStock::commit_for_order`]: exactly what the order holds | `warehouse.stock_committed` |
//!
//! Events arrive in any order and more than once: the order's hold
//! ([`crate::order_hold::decide`]) says what each does, the reservation is
//! [`crate::reservation::answer_confirmation`] and the settlement [`crate::settlement::settle_held`],
//! which the port runs in one transaction holding the order's hold and the records locked. The
//! system acts here, not a user: movements carry no author.

use std::sync::Arc;

use event_contracts::orders::{OrderEventData, ORDER_CANCELLED, ORDER_CONFIRMED, ORDER_FULFILLED};
use shared_kernel::application::Clock;
use uuid::Uuid;

use crate::operations::Stamp;
use crate::planning::ReservationLine;
use crate::repository::{OrderStockRepository, RepoError, ReservationOutcome, SettleOutcome};

/// What handling an order event came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderStockOutcome {
    /// `order.confirmed`: the reservation's outcome.
    Reservation(ReservationOutcome),
    /// `order.cancelled` or `order.fulfilled`: what was released or committed.
    Settlement(SettleOutcome),
    /// Another order event: nothing for the warehouse to do.
    Ignored,
}

/// The order-flow use cases.
#[derive(Clone)]
pub struct OrderStock {
    stock: Arc<dyn OrderStockRepository>,
    clock: Arc<dyn Clock>,
}

impl OrderStock {
    /// The service over its port and clock.
    pub fn new(stock: Arc<dyn OrderStockRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { stock, clock }
    }

    /// Whether the event named `event_name` concerns stock.
    pub fn handles(event_name: &str) -> bool {
        matches!(event_name, ORDER_CONFIRMED | ORDER_CANCELLED | ORDER_FULFILLED)
    }

    /// The order event `event_name` with its payload, as the warehouse answers it.
    #[tracing::instrument(skip_all, fields(event = %event_name, order_id = %data.order_id))]
    pub async fn on_order_event(
        &self,
        event_name: &str,
        data: &OrderEventData,
    ) -> Result<OrderStockOutcome, RepoError> {
        Ok(match event_name {
            ORDER_CONFIRMED => {
                let lines: Vec<ReservationLine> = data
                    .lines
                    .iter()
                    .map(|l| ReservationLine { line_id: l.line_id, product_id: l.product_id, quantity: l.quantity })
                    .collect();
                OrderStockOutcome::Reservation(self.reserve_for_order(data.order_id, &lines).await?)
            }
            ORDER_CANCELLED => OrderStockOutcome::Settlement(self.release_for_order(data.order_id).await?),
            ORDER_FULFILLED => OrderStockOutcome::Settlement(self.commit_for_order(data.order_id).await?),
            _ => OrderStockOutcome::Ignored,
        })
    }

    /// Reserves every line of a confirmed order or none, unless the order was released first.
    #[tracing::instrument(skip_all, fields(order_id = %order_id, lines = lines.len()))]
    pub async fn reserve_for_order(
        &self,
        order_id: Uuid,
        lines: &[ReservationLine],
    ) -> Result<ReservationOutcome, RepoError> {
        self.stock.reserve_for_order(order_id, lines, self.stamp()).await
    }

    /// Releases what a cancelled order holds; a later confirmation then reserves nothing.
    #[tracing::instrument(skip_all, fields(order_id = %order_id))]
    pub async fn release_for_order(&self, order_id: Uuid) -> Result<SettleOutcome, RepoError> {
        self.stock.release_for_order(order_id, self.stamp()).await
    }

    /// Commits what a fulfilled order holds.
    #[tracing::instrument(skip_all, fields(order_id = %order_id))]
    pub async fn commit_for_order(&self, order_id: Uuid) -> Result<SettleOutcome, RepoError> {
        self.stock.commit_for_order(order_id, self.stamp()).await
    }

    fn stamp(&self) -> Stamp {
        Stamp { at: self.clock.now(), by: None }
    }
}
