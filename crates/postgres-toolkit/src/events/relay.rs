//! The outbox relay: hands committed events to the bus.
//!
//! Rows are claimed with `FOR UPDATE SKIP LOCKED`, so several instances can
//! relay at once without publishing a row twice. The relay wakes when this
//! process commits events it has to claim (`OutboxSignal`), gathers a burst for
//! a few milliseconds, and claims it in one statement; otherwise it polls slowly.
//! Events handed to the bus from memory (`handoff`) never wake it: a claim
//! would find nothing (docs/adr/0014-events-handed-over-from-memory.md).

use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use diesel::prelude::*;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use shared_kernel::ports::EventBus;
use shared_kernel::EventEnvelope;
use tokio::sync::{watch, Notify};
use uuid::Uuid;

use crate::db::DbError;
use crate::events::log::RecordedEvent;
use crate::pipeline::bookkeeping;
use crate::prepared::Prepared;
use crate::schema::outbox_events;
use crate::DbPool;

/// Wakes the relay right after a transaction commits events the relay has to claim.
#[derive(Clone, Default)]
pub struct OutboxSignal(Arc<SignalState>);

#[derive(Default)]
struct SignalState {
    wake: Notify,
    /// The relay stopped at the in-memory bus's high-water mark and waits for room.
    paused: AtomicBool,
}

impl OutboxSignal {
    pub fn notify(&self) {
        self.0.wake.notify_one();
    }

    /// The bus finished an event: wakes the relay if it paused at the high-water mark, and only
    /// then (an event finished is otherwise no work for the relay).
    pub fn room_made(&self) {
        // Pairs with the fence in `pause_while`: either the relay sees the room, or this sees it paused.
        fence(Ordering::SeqCst);
        if self.0.paused.swap(false, Ordering::SeqCst) {
            self.notify();
        }
    }

    /// Marks the relay paused while `full()` holds, and answers whether it does. Marked before the
    /// check, so that room made meanwhile either shows in the check or wakes the relay.
    fn pause_while(&self, full: impl FnOnce() -> bool) -> bool {
        self.0.paused.store(true, Ordering::SeqCst);
        fence(Ordering::SeqCst);
        if full() {
            return true;
        }
        self.0.paused.store(false, Ordering::SeqCst);
        false
    }

    /// Waits for the next wake-up (what the relay's loop waits for); one given before it is kept.
    pub async fn woken(&self) {
        self.0.wake.notified().await;
    }
}

/// Without a wake-up from this process (events committed by another
/// instance, or left by a crash), the outbox is looked at this often.
const POLL_INTERVAL: Duration = Duration::from_secs(1);
/// After a wake-up, the relay waits this long so that the commits of a burst
/// are claimed together: one claim per window instead of one per event.
const GATHER: Duration = Duration::from_millis(5);

/// With the in-process bus, the relay hands over no more while this many events wait in the bus's queue:
/// the rest wait in the outbox (durable, and not in this process's memory) until the handlers catch up.
/// While it waits, each finished event wakes it (`PgDeliveryObserver::completed`, `OutboxSignal::room_made`),
/// so it resumes as soon as the queue falls below the mark. The final flush at shutdown ignores the mark: the bus handles what is
/// queued before it stops.
pub const IN_MEMORY_HIGH_WATER: i64 = 1_000;

#[derive(Clone)]
pub struct OutboxRelay {
    pool: DbPool,
    bus: Arc<dyn EventBus>,
    signal: OutboxSignal,
    batch_size: i64,
}

impl OutboxRelay {
    pub fn new(pool: DbPool, bus: Arc<dyn EventBus>, signal: OutboxSignal) -> Self {
        Self { pool, bus, signal, batch_size: 100 }
    }

    /// With a non-durable bus, events handed over before a crash may never
    /// have been handled (they are still in `outbox_in_flight`): hand them over again. The inbox
    /// makes that safe.
    pub async fn requeue_incomplete(&self) -> Result<usize, DbError> {
        if self.bus.is_durable() {
            return Ok(0);
        }
        let mut conn = self.pool.get().await?;
        let reset = Prepared(diesel::sql_query(REQUEUE_ALL)).execute(&mut conn).await?;
        if reset > 0 {
            tracing::info!(count = reset, "re-queued events whose handling did not finish before the last stop");
        }
        Ok(reset)
    }

    /// Publishes one batch; returns how many events went out.
    pub async fn relay_batch(&self) -> Result<usize, DbError> {
        if self.bus.is_durable() {
            self.relay_batch_in_transaction().await
        } else {
            self.relay_batch_claimed().await
        }
    }

    /// Durable bus: publish while the rows are locked, mark them in the same
    /// transaction. A crash before commit re-publishes (at least once); an
    /// event is never marked without having reached the bus.
    async fn relay_batch_in_transaction(&self) -> Result<usize, DbError> {
        let mut conn = self.pool.get().await?;
        let bus = self.bus.clone();
        let batch_size = self.batch_size;
        // Marked without waiting for the flush: a mark lost to a crash publishes the rows again.
        bookkeeping(&mut conn, async |mut conn: &AsyncPgConnection| -> Result<usize, DbError> {
            let rows: Vec<RecordedEvent> = outbox_events::table
                .filter(outbox_events::published_at.is_null())
                .order((outbox_events::occurred_at.asc(), outbox_events::id.asc()))
                .limit(batch_size)
                .for_update()
                .skip_locked()
                .select(RecordedEvent::as_select())
                .load(&mut conn)
                .await?;
            let sent = publish_in_order(bus.as_ref(), rows).await;
            if !sent.is_empty() {
                let now = time::OffsetDateTime::now_utc();
                Prepared(
                    diesel::update(outbox_events::table.filter(outbox_events::id.eq_any(&sent)))
                        .set(outbox_events::published_at.eq(now)),
                )
                .execute(&mut conn)
                .await?;
            }
            Ok(sent.len())
        })
        .await
    }

    /// In-process bus: claim (mark) the rows first and commit, then publish.
    /// Holding row locks while the bus works could deadlock with the bus's
    /// completion marks. Rows the bus refused are un-claimed; rows lost to a
    /// crash are re-queued at start (`requeue_incomplete`).
    async fn relay_batch_claimed(&self) -> Result<usize, DbError> {
        let mut conn = self.pool.get().await?;
        let claim =
            Prepared(diesel::sql_query(CLAIM_FOR_THE_BUS).bind::<diesel::sql_types::BigInt, _>(self.batch_size));
        let mut rows: Vec<RecordedEvent> =
            bookkeeping(&mut conn, async |mut conn: &AsyncPgConnection| claim.get_results(&mut conn).await).await?;
        rows.sort_by_key(|row| (row.occurred_at, row.id));
        let claimed: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
        let sent = publish_in_order(self.bus.as_ref(), rows).await;
        if sent.len() < claimed.len() {
            let unsent = &claimed[sent.len()..];
            bookkeeping(&mut conn, async |conn: &AsyncPgConnection| unpublish(conn, unsent).await).await?;
        }
        Ok(sent.len())
    }

    /// Relays until the outbox is empty (or the bus refuses, or an in-process bus holds
    /// [`IN_MEMORY_HIGH_WATER`] events).
    pub async fn drain(&self) -> Result<usize, DbError> {
        self.drain_up_to(IN_MEMORY_HIGH_WATER).await
    }

    async fn drain_up_to(&self, high_water: i64) -> Result<usize, DbError> {
        let mut total = 0;
        loop {
            if !self.bus.is_durable() && self.signal.pause_while(|| self.bus.queue_depth() >= high_water) {
                return Ok(total);
            }
            let sent = self.relay_batch().await?;
            total += sent;
            if sent < usize::try_from(self.batch_size).unwrap_or(usize::MAX) {
                return Ok(total);
            }
        }
    }

    /// Runs until `stop` turns true, then drains once more.
    pub fn spawn(self, mut stop: watch::Receiver<bool>) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                if let Err(error) = self.drain().await {
                    tracing::warn!(%error, "outbox relay round failed");
                }
                if *stop.borrow() {
                    break;
                }
                tokio::select! {
                    _ = self.signal.woken() => tokio::time::sleep(GATHER).await,
                    _ = tokio::time::sleep(POLL_INTERVAL) => {}
                    _ = stop.changed() => {}
                }
            }
            if let Err(error) = self.drain_up_to(i64::MAX).await {
                tracing::warn!(%error, "final outbox flush failed");
            }
        })
    }
}

/// The oldest unpublished events, claimed for the in-process bus: published, and in flight until
/// their handlers are done. `ON CONFLICT`: an event can only be in flight already if its row was
/// reset by hand; it is claimed all the same.
const CLAIM_FOR_THE_BUS: &str = "WITH claimed AS ( \
       UPDATE outbox_events SET published_at = now() \
       WHERE id IN (SELECT id FROM outbox_events WHERE published_at IS NULL \
                    ORDER BY occurred_at, id LIMIT $1 FOR UPDATE SKIP LOCKED) \
       RETURNING id, name, aggregate_id, occurred_at, data, published_at), \
     in_flight AS (INSERT INTO outbox_in_flight (event_id) SELECT id FROM claimed ON CONFLICT DO NOTHING) \
     SELECT id, name, aggregate_id, occurred_at, data, published_at FROM claimed";

/// Every event still in flight, unpublished again (start-up, after a crash).
const REQUEUE_ALL: &str = "WITH unfinished AS (DELETE FROM outbox_in_flight RETURNING event_id) \
     UPDATE outbox_events SET published_at = NULL WHERE id IN (SELECT event_id FROM unfinished)";

/// The events of `ids` still in flight (not done), taken out of flight.
const UNPUBLISH: &str = "WITH unfinished AS ( \
       DELETE FROM outbox_in_flight WHERE event_id = ANY($1) RETURNING event_id) \
     UPDATE outbox_events SET published_at = NULL WHERE id IN (SELECT event_id FROM unfinished)";

/// Marks the events `ids` that are not done unpublished again, for the relay to deliver. An event
/// whose handlers finished meanwhile has left `outbox_in_flight` and stays as it is.
pub(crate) async fn unpublish(mut conn: &AsyncPgConnection, ids: &[Uuid]) -> QueryResult<usize> {
    Prepared(diesel::sql_query(UNPUBLISH).bind::<diesel::sql_types::Array<diesel::sql_types::Uuid>, _>(ids))
        .execute(&mut conn)
        .await
}

/// Publishes in order and stops at the first refusal, so a later event never
/// overtakes an earlier one. Returns the ids that reached the bus.
async fn publish_in_order(bus: &dyn EventBus, rows: Vec<RecordedEvent>) -> Vec<Uuid> {
    let mut sent = Vec::with_capacity(rows.len());
    for row in rows {
        let event = EventEnvelope {
            id: row.id,
            name: row.name,
            aggregate_id: row.aggregate_id,
            occurred_at: row.occurred_at,
            data: row.data,
        };
        if let Err(error) = bus.publish(&event).await {
            tracing::warn!(event_id = %event.id, %error, "bus refused event; will retry");
            break;
        }
        sent.push(event.id);
    }
    sent
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn woken_soon(signal: &OutboxSignal) -> bool {
        tokio::time::timeout(Duration::from_millis(50), signal.woken()).await.is_ok()
    }

    #[tokio::test]
    async fn a_finished_event_wakes_only_a_relay_paused_at_the_mark() {
        let signal = OutboxSignal::default();
        signal.room_made();
        assert!(!woken_soon(&signal).await, "a finished event is no work for a relay that is not paused");

        assert!(signal.pause_while(|| true));
        signal.room_made();
        assert!(woken_soon(&signal).await, "room for a paused relay");
        signal.room_made();
        assert!(!woken_soon(&signal).await, "woken once: the pause is over");
    }

    #[tokio::test]
    async fn room_found_by_the_check_keeps_the_relay_going_unpaused() {
        let signal = OutboxSignal::default();
        assert!(!signal.pause_while(|| false));
        signal.room_made();
        assert!(!woken_soon(&signal).await);
    }

    #[tokio::test]
    async fn a_wake_up_before_the_relay_waits_is_kept() {
        let signal = OutboxSignal::default();
        signal.notify();
        assert!(woken_soon(&signal).await);
    }
}
