//! Subscriber: every outbox event becomes a delivery for each enabled endpoint listening to it.
//! Deliveries come from the outbox, so a change that rolled back sends nothing, and a
//! redelivered event makes no second delivery (one per event and endpoint, by a unique key).

use async_trait::async_trait;
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;

use super::queue::DeliveryQueue;
use super::worker::WorkerSignal;

pub const HANDLER_NAME: &str = "webhooks.fan_out";

pub struct WebhookFanOut {
    queue: DeliveryQueue,
    worker: WorkerSignal,
}

impl WebhookFanOut {
    pub fn new(queue: DeliveryQueue, worker: WorkerSignal) -> Self {
        Self { queue, worker }
    }
}

#[async_trait]
impl EventHandler for WebhookFanOut {
    fn name(&self) -> &'static str {
        HANDLER_NAME
    }

    fn handles(&self, _event_name: &str) -> bool {
        true
    }

    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        let made = self.queue.fan_out(event).await.map_err(|e| HandlerError::new(e.to_string()))?;
        if made > 0 {
            self.worker.notify();
        }
        Ok(())
    }
}
