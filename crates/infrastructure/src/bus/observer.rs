//! What a bus reports back: dead letters, and (in-process) completion.

use async_trait::async_trait;
use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shared_kernel::EventEnvelope;
use uuid::Uuid;

use crate::events::dead_letters::DeadLetterSink;
use crate::events::{OutboxSignal, PgDeadLetterStore};
use crate::schema::outbox_events;
use crate::DbPool;

#[async_trait]
pub trait DeliveryObserver: Send + Sync {
    /// A handler failed on its last attempt.
    async fn dead_letter(&self, event: &EventEnvelope, handler: &str, error: &str, attempts: u32);
    /// Every handler is done with the event (succeeded or dead-lettered).
    async fn completed(&self, event_id: Uuid);
    /// A handler succeeded; it may have written events of its own.
    fn delivered(&self) {}
}

/// Stores dead letters and completion marks in PostgreSQL.
#[derive(Clone)]
pub struct PgDeliveryObserver {
    pool: DbPool,
    dead_letters: PgDeadLetterStore,
    /// Wakes the relay after a handler ran: handlers record reply events.
    relay: Option<OutboxSignal>,
}

impl PgDeliveryObserver {
    pub fn new(pool: DbPool) -> Self {
        Self { dead_letters: PgDeadLetterStore::new(pool.clone()), pool, relay: None }
    }

    pub fn waking(mut self, relay: OutboxSignal) -> Self {
        self.relay = Some(relay);
        self
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
        let marked = async {
            let mut conn = self.pool.get().await?;
            diesel::update(outbox_events::table.find(event_id))
                .filter(outbox_events::completed_at.is_null())
                .set(outbox_events::completed_at.eq(diesel::dsl::now))
                .execute(&mut conn)
                .await?;
            Ok::<_, crate::DbError>(())
        }
        .await;
        if let Err(error) = marked {
            // Harmless: the event is replayed at the next start and the inbox
            // keeps the handlers from doing their work twice.
            tracing::warn!(%event_id, %error, "could not mark event completed");
        }
    }
}
