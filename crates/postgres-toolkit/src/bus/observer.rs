//! What a bus reports back: dead letters, and (in-process) completion.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shared_kernel::EventEnvelope;
use tokio::sync::{mpsc, oneshot};
use uuid::Uuid;

use crate::events::dead_letters::DeadLetterSink;
use crate::events::{OutboxSignal, PgDeadLetterStore};
use crate::prepared::Prepared;
use crate::schema::outbox_in_flight;
use crate::DbPool;

#[async_trait]
pub trait DeliveryObserver: Send + Sync {
    /// A handler failed on its last attempt.
    async fn dead_letter(&self, event: &EventEnvelope, handler: &str, error: &str, attempts: u32);
    /// Every handler is done with the event (succeeded or dead-lettered).
    async fn completed(&self, event_id: Uuid);
    /// A handler that may record events of its own (`EventHandler::records_events`) succeeded.
    fn delivered(&self) {}
}

/// Stores dead letters and completion marks in PostgreSQL.
#[derive(Clone)]
pub struct PgDeliveryObserver {
    dead_letters: PgDeadLetterStore,
    completions: CompletionMarks,
    /// Wakes the relay after a handler that records events ran, and when a relay paused at the
    /// in-memory bus's high-water mark may go on.
    relay: Option<OutboxSignal>,
}

impl PgDeliveryObserver {
    /// Starts the task that writes completion marks; call inside the runtime.
    pub fn new(pool: DbPool) -> Self {
        Self {
            dead_letters: PgDeadLetterStore::new(pool.clone()),
            completions: CompletionMarks::start(pool),
            relay: None,
        }
    }

    pub fn waking(mut self, relay: OutboxSignal) -> Self {
        self.relay = Some(relay);
        self
    }

    /// Waits until every completion reported so far is written.
    pub async fn flush(&self) {
        self.completions.flush().await;
    }
}

#[async_trait]
impl DeliveryObserver for PgDeliveryObserver {
    async fn dead_letter(&self, event: &EventEnvelope, handler: &str, error: &str, attempts: u32) {
        self.dead_letters.record(event, handler, error, attempts).await;
    }

    fn delivered(&self) {
        if let Some(relay) = &self.relay {
            relay.notify();
        }
    }

    async fn completed(&self, event_id: Uuid) {
        self.completions.mark(event_id);
        // The bus holds one event fewer: a relay paused at its high-water mark may go on.
        if let Some(relay) = &self.relay {
            relay.room_made();
        }
    }
}

enum Mark {
    Done(Uuid),
    Flush(oneshot::Sender<()>),
}

/// The most marks one statement writes.
const MARKS_PER_STATEMENT: usize = 1_000;
/// How long the first mark waits for company. A mark only says an event needs no delivery again
/// after a crash: a few milliseconds' delay costs nothing, a statement per event would.
const MARK_GATHER: std::time::Duration = std::time::Duration::from_millis(10);

/// Completion marks written in batches: one `DELETE` from `outbox_in_flight` (the event's outbox row
/// is left as it is) covers every mark that arrived while the previous one ran or within
/// [`MARK_GATHER`] of the first,
/// so a burst of events costs a handful of statements, not one per event; it
/// commits without waiting for its WAL flush (`pipeline::bookkeeping`). A mark lost to a crash only means the
/// event is handed to the bus again at the next start, where the inbox keeps
/// handlers from doing their work twice.
#[derive(Clone)]
struct CompletionMarks {
    sender: mpsc::UnboundedSender<Mark>,
}

impl CompletionMarks {
    fn start(pool: DbPool) -> Self {
        let (sender, mut receiver) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            while let Some(first) = receiver.recv().await {
                // The marks of a burst's events arrive over a few milliseconds: one statement for them.
                if matches!(first, Mark::Done(_)) {
                    tokio::time::sleep(MARK_GATHER).await;
                }
                let (mut ids, mut waiters) = (Vec::new(), Vec::new());
                let mut next = Some(first);
                while let Some(mark) = next.take() {
                    match mark {
                        Mark::Done(id) => ids.push(id),
                        Mark::Flush(waiter) => waiters.push(waiter),
                    }
                    if ids.len() < MARKS_PER_STATEMENT {
                        next = receiver.try_recv().ok();
                    }
                }
                if !ids.is_empty() {
                    if let Err(error) = write_marks(&pool, &ids).await {
                        // Harmless: see the type's comment.
                        tracing::warn!(count = ids.len(), %error, "could not mark events completed");
                    }
                }
                for waiter in waiters {
                    let _ = waiter.send(());
                }
            }
        });
        Self { sender }
    }

    fn mark(&self, event_id: Uuid) {
        let _ = self.sender.send(Mark::Done(event_id));
    }

    async fn flush(&self) {
        let (done, wait) = oneshot::channel();
        if self.sender.send(Mark::Flush(done)).is_ok() {
            let _ = wait.await;
        }
    }
}

async fn write_marks(pool: &DbPool, ids: &[Uuid]) -> Result<(), crate::DbError> {
    let mut conn = pool.get().await?;
    crate::pipeline::bookkeeping(&mut conn, async |mut conn: &diesel_async::AsyncPgConnection| {
        Prepared(diesel::delete(outbox_in_flight::table.filter(outbox_in_flight::event_id.eq_any(ids))))
            .execute(&mut conn)
            .await
    })
    .await?;
    Ok(())
}
