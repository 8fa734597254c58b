//! The warehouse's subscriber to order events (docs/orders-and-warehouse.md, "Order flow"): parses
//! the event and hands it to the use case (`warehouse_domain::application::OrderStock`), which says
//! what it means for stock. Idempotency and ordering are the repository's (inbox first, then the
//! order's hold); confirmations that arrive together are reserved in one transaction
//! (`super::reservation_batch`), the rest one transaction per event.

use std::sync::Arc;

use async_trait::async_trait;
use event_contracts::orders::{OrderEventData, ORDER_CONFIRMED};
use shared_kernel::application::{Clock, SystemClock};
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;
use warehouse_domain::application::{OrderStock, OrderStockOutcome};

use super::PgOrderStockRepository;
use postgres_toolkit::events::Delivery;

pub const HANDLER_NAME: &str = "warehouse.order_events";

pub struct OrderEventsHandler {
    /// Reserving through the group commit of this handler's inbox.
    stock: PgOrderStockRepository,
    clock: Arc<dyn Clock>,
}

impl OrderEventsHandler {
    /// Starts the reservations' batching task; call inside the runtime.
    pub fn new(stock: PgOrderStockRepository) -> Self {
        Self { stock: stock.batched(HANDLER_NAME), clock: Arc::new(SystemClock) }
    }
}

#[async_trait]
impl EventHandler for OrderEventsHandler {
    fn name(&self) -> &'static str {
        HANDLER_NAME
    }

    fn handles(&self, event_name: &str) -> bool {
        OrderStock::handles(event_name)
    }

    /// Confirmations go through the reservations' group commit.
    fn done_together(&self, event_name: &str) -> bool {
        event_name == ORDER_CONFIRMED
    }

    #[tracing::instrument(skip_all, fields(event_id = %event.id, event = %event.name))]
    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        let data: OrderEventData = event.payload().map_err(|e| HandlerError::new(e.to_string()))?;
        // Bound to this delivery: a redelivered event finds its inbox mark and changes nothing.
        let stock = Arc::new(self.stock.for_delivery(Delivery::new(event.id, HANDLER_NAME)));
        let outcome = OrderStock::new(stock, self.clock.clone())
            .on_order_event(&event.name, &data)
            .await
            .map_err(|e| HandlerError::new(format!("{}: {e}", event.name)))?;
        if let OrderStockOutcome::Reservation(outcome) = &outcome {
            tracing::info!(order_id = %data.order_id, ?outcome, "reservation for confirmed order");
        }
        Ok(())
    }
}
