//! The warehouse's subscriber to order events: reserve on `order.confirmed`, release on
//! `order.cancelled`, commit on `order.fulfilled` (docs/orders-and-warehouse.md, "Order flow"). Idempotency, ordering
//! and the replies are the repository's (inbox first); confirmations that arrive together are
//! reserved in one transaction (`super::reservation_batch`), the rest one transaction per event.

use async_trait::async_trait;
use event_contracts::orders::{OrderEventData, ORDER_CANCELLED, ORDER_CONFIRMED, ORDER_FULFILLED};
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;
use time::OffsetDateTime;
use warehouse_domain::{OrderStockRepository, ReservationLine, Stamp};

use super::reservation_batch::{ReservationRequest, Reservations};
use super::PgOrderStockRepository;
use crate::events::Delivery;
use crate::group_commit::GroupCommit;

pub const HANDLER_NAME: &str = "warehouse.order_events";

pub struct OrderEventsHandler {
    stock: PgOrderStockRepository,
    reservations: GroupCommit<Reservations>,
}

impl OrderEventsHandler {
    /// Starts the reservations' batching task; call inside the runtime.
    pub fn new(stock: PgOrderStockRepository) -> Self {
        let reservations = GroupCommit::start(Reservations { pool: stock.pool().clone(), handler: HANDLER_NAME });
        Self { stock, reservations }
    }
}

#[async_trait]
impl EventHandler for OrderEventsHandler {
    fn name(&self) -> &'static str {
        HANDLER_NAME
    }

    fn handles(&self, event_name: &str) -> bool {
        matches!(event_name, ORDER_CONFIRMED | ORDER_CANCELLED | ORDER_FULFILLED)
    }

    /// Confirmations go through the reservations' group commit.
    fn done_together(&self, event_name: &str) -> bool {
        event_name == ORDER_CONFIRMED
    }

    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        let data: OrderEventData = event.payload().map_err(|e| HandlerError::new(e.to_string()))?;
        // The system acts here, not a user.
        let stamp = Stamp { at: OffsetDateTime::now_utc(), by: None };
        let failed = |e: warehouse_domain::RepoError| HandlerError::new(format!("{}: {e}", event.name));
        // Bound to this delivery: a redelivered event finds its inbox mark and changes nothing.
        let stock = self.stock.for_delivery(Delivery::new(event.id, HANDLER_NAME));
        match event.name.as_str() {
            ORDER_CONFIRMED => {
                let lines: Vec<ReservationLine> = data
                    .lines
                    .iter()
                    .map(|l| ReservationLine { line_id: l.line_id, product_id: l.product_id, quantity: l.quantity })
                    .collect();
                let request = ReservationRequest { event_id: Some(event.id), order_id: data.order_id, lines, stamp };
                let outcome = self.reservations.submit(request).await.map_err(failed)?;
                tracing::info!(order_id = %data.order_id, ?outcome, "reservation for confirmed order");
            }
            ORDER_CANCELLED => {
                stock.release_for_order(data.order_id, stamp).await.map_err(failed)?;
            }
            ORDER_FULFILLED => {
                stock.commit_for_order(data.order_id, stamp).await.map_err(failed)?;
            }
            _ => {}
        }
        Ok(())
    }
}
