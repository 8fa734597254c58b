//! Subscriber: every outbox event becomes a delivery for each enabled endpoint listening to it.
//! Deliveries come from the outbox, so a change that rolled back sends nothing, and a
//! redelivered event makes no second delivery (one per event and endpoint, by a unique key).
//!
//! Handlers run one event at a time, so the events handled at once are grouped into one
//! statement (a group commit): each handler call still returns only once its event's
//! deliveries are stored, and a burst of writes costs a few statements, not one per event.

use async_trait::async_trait;
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;
use tokio::sync::{mpsc, oneshot};

use super::queue::DeliveryQueue;
use super::worker::WorkerSignal;

pub const HANDLER_NAME: &str = "webhooks.fan_out";
/// The most events one statement fans out.
const MAX_BATCH: usize = 256;

struct Pending {
    event: EventEnvelope,
    stored: oneshot::Sender<Result<(), String>>,
}

pub struct WebhookFanOut {
    batches: mpsc::Sender<Pending>,
}

impl WebhookFanOut {
    /// Starts the task that stores the batches; call inside the runtime.
    pub fn new(queue: DeliveryQueue, worker: WorkerSignal) -> Self {
        let (batches, pending) = mpsc::channel(MAX_BATCH * 4);
        tokio::spawn(store_batches(queue, worker, pending));
        Self { batches }
    }
}

/// Stores whatever events wait, all at once, until every handler is gone.
async fn store_batches(queue: DeliveryQueue, worker: WorkerSignal, mut pending: mpsc::Receiver<Pending>) {
    let mut batch = Vec::with_capacity(MAX_BATCH);
    while pending.recv_many(&mut batch, MAX_BATCH).await > 0 {
        let events: Vec<&EventEnvelope> = batch.iter().map(|p| &p.event).collect();
        let outcome = queue.fan_out(&events).await;
        if matches!(outcome, Ok(made) if made > 0) {
            worker.notify();
        }
        let outcome = outcome.map(|_| ()).map_err(|e| e.to_string());
        for waiting in batch.drain(..) {
            let _ = waiting.stored.send(outcome.clone());
        }
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
        let (stored, outcome) = oneshot::channel();
        let stopped = || HandlerError::new("the webhook fan-out has stopped");
        self.batches.send(Pending { event: event.clone(), stored }).await.map_err(|_| stopped())?;
        outcome.await.map_err(|_| stopped())?.map_err(HandlerError::new)
    }
}
