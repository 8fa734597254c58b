//! Subscriber: every outbox event becomes a delivery for each enabled endpoint listening to it.
//! Deliveries come from the outbox, so a change that rolled back sends nothing, and a
//! redelivered event makes no second delivery (one per event and endpoint, by a unique key).
//!
//! Handlers run one event at a time, so the events handled at once are grouped into one
//! statement ([`postgres_toolkit::group_commit`]): each handler call still returns only once its event's
//! deliveries are stored, and a burst of writes costs a few statements, not one per event.

use async_trait::async_trait;
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::{EventEnvelope, StorageError};
use uuid::Uuid;

use super::queue::DeliveryQueue;
use super::worker::WorkerSignal;
use postgres_toolkit::group_commit::{Batched, GroupCommit};

pub const HANDLER_NAME: &str = "webhooks.fan_out";

pub struct WebhookFanOut {
    batches: GroupCommit<FanOut>,
}

impl WebhookFanOut {
    /// Starts the task that stores the batches; call inside the runtime.
    pub fn new(queue: DeliveryQueue, worker: WorkerSignal) -> Self {
        Self { batches: GroupCommit::start(FanOut { queue, worker }) }
    }
}

/// Events fanned out to deliveries, many per statement.
struct FanOut {
    queue: DeliveryQueue,
    worker: WorkerSignal,
}

#[async_trait]
impl Batched for FanOut {
    type Request = EventEnvelope;
    type Outcome = ();
    type Error = StorageError;
    type Key = Uuid;

    /// One statement, no locks held past it: a batch may be large.
    const MAX_BATCH: usize = 256;
    /// Events reach the bus one by one as their writes commit: a statement per few milliseconds of
    /// them, not per event (the fan-out's `INSERT` costs about the same for one event as for many).
    const GATHER: std::time::Duration = std::time::Duration::from_millis(5);

    fn key(event: &EventEnvelope) -> Uuid {
        event.id
    }

    async fn many(&self, events: &[&EventEnvelope]) -> Result<Vec<()>, StorageError> {
        if self.queue.fan_out(events).await? > 0 {
            self.worker.notify();
        }
        Ok(vec![(); events.len()])
    }

    fn lost() -> StorageError {
        StorageError::Unknown("the webhook fan-out has stopped".to_owned())
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

    /// Every event goes through the fan-out's group commit.
    fn done_together(&self, _event_name: &str) -> bool {
        true
    }

    /// It stores deliveries, never events.
    fn records_events(&self) -> bool {
        false
    }

    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        self.batches.submit(event.clone()).await.map_err(|e| HandlerError::new(e.to_string()))
    }
}
