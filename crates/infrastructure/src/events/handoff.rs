//! Committed events handed straight to the in-process bus, without the relay's claim.
//!
//! The relay finds an event by reading the outbox and claims it with an `UPDATE` (a new row version,
//! an entry in every outbox index, a commit with its WAL flush) before the bus gets it. Work that
//! runs inside [`handing_over`] skips all of that: [`record_event`](super::record_event) inserts its
//! events already marked published, and once their transaction has committed they go to the bus's
//! queue from memory. What a crash loses is safe as before: the rows stay published but incomplete,
//! and start-up hands them to the bus again (`OutboxRelay::requeue_incomplete`; the inbox makes the
//! second delivery harmless).
//!
//! An event goes the relay's way instead (inserted unpublished) when no bus queue is registered on
//! the pool (a durable bus publishes while its rows are locked), when the queue holds the relay's
//! high-water mark already, or when the work has two transactions open at once. An event that was
//! inserted published but could not be queued (the queue filled up or closed), or whose commit's
//! outcome is unknown (`COMMIT` failed, the work was dropped while it ran, or a second transaction
//! overlapped its own), is marked unpublished again by a task of its own, so the relay delivers it if
//! it exists.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shared_kernel::EventEnvelope;
use uuid::Uuid;

use crate::schema::outbox_events;
use crate::DbPool;

/// The queue of a bus that takes events from memory: the in-process bus's.
pub trait DirectQueue: Send + Sync {
    /// Whether the queue is below the mark past which events wait in the outbox instead.
    fn has_room(&self) -> bool;
    /// Queues `event` at once, without waiting; gives it back when the queue is full or closed.
    fn offer(&self, event: EventEnvelope) -> Result<(), EventEnvelope>;
}

/// What the transactions of one [`handing_over`] recorded, by state.
struct Collected {
    queue: Arc<dyn DirectQueue>,
    /// Transactions open on the work's task (savepoints not counted).
    open: u32,
    /// A second transaction opened while one was open: which of them a pending event belongs to is
    /// unknown, so the pending events go back to the relay, which delivers those that committed.
    overlapped: bool,
    /// Recorded inside the open transaction.
    pending: Vec<EventEnvelope>,
    /// Committed: to hand over when the work ends.
    committed: Vec<EventEnvelope>,
    /// Their commit may or may not have landed.
    doubtful: Vec<Uuid>,
}

tokio::task_local! {
    static COLLECTED: Arc<Mutex<Collected>>;
}

fn with_collected<T>(f: impl FnOnce(&mut Collected) -> T) -> Option<T> {
    COLLECTED.try_with(|collected| f(&mut collected.lock().unwrap_or_else(PoisonError::into_inner))).ok()
}

/// Runs `work` so that the events its transactions record are handed to the bus from memory once
/// committed (see the module's comment). The transactions must go through
/// [`crate::pipeline::transaction`], which tells this module how each one ended.
pub async fn handing_over<F: Future>(pool: &DbPool, work: F) -> F::Output {
    let Some(queue) = pool.direct_queue() else {
        return work.await;
    };
    let collected = Arc::new(Mutex::new(Collected {
        queue,
        open: 0,
        overlapped: false,
        pending: Vec::new(),
        committed: Vec::new(),
        doubtful: Vec::new(),
    }));
    // Dropped before the end (the work was cancelled), the guard sends what is left to the relay.
    let guard = Leftovers { collected: collected.clone(), pool: pool.clone() };
    let output = COLLECTED.scope(collected, work).await;
    drop(guard); // hands the committed events over
    output
}

/// Called by `record_event` inside a transaction: whether `events` will be handed over from memory
/// after the commit (then they are inserted published).
pub(crate) fn will_hand_over(events: &[EventEnvelope]) -> bool {
    with_collected(|collected| {
        let takes = collected.open == 1 && collected.queue.has_room();
        if takes {
            collected.pending.extend_from_slice(events);
        }
        takes
    })
    .unwrap_or(false)
}

/// How a transaction ended, as [`crate::pipeline::transaction`] reports it.
pub(crate) enum Ending {
    Committed,
    RolledBack,
    /// `COMMIT` failed: whether it landed is unknown.
    Unknown,
}

/// A transaction begins on this task (not a savepoint).
pub(crate) fn opened() {
    with_collected(|collected| {
        collected.overlapped |= collected.open > 0;
        collected.open += 1;
    });
}

/// The transaction begun by [`opened`] ended.
pub(crate) fn closed(ending: Ending) {
    with_collected(|collected| {
        collected.open = collected.open.saturating_sub(1);
        let pending = std::mem::take(&mut collected.pending);
        match ending {
            _ if collected.overlapped => collected.doubtful.extend(pending.iter().map(|e| e.id)),
            Ending::Committed => collected.committed.extend(pending),
            Ending::RolledBack => {}
            Ending::Unknown => collected.doubtful.extend(pending.iter().map(|e| e.id)),
        }
        if collected.open == 0 {
            collected.overlapped = false;
        }
    });
}

/// How many events the open transaction has recorded: a savepoint's starting mark.
pub(crate) fn mark() -> usize {
    with_collected(|collected| collected.pending.len()).unwrap_or(0)
}

/// A savepoint begun at `mark` rolled back: its events are gone with it.
pub(crate) fn rolled_back_to(mark: usize) {
    with_collected(|collected| collected.pending.truncate(mark));
}

struct Leftovers {
    collected: Arc<Mutex<Collected>>,
    pool: DbPool,
}

/// Queues the committed events and sends anything that could not be queued back to the relay; in
/// `Drop`, so that a cancelled [`handing_over`] does the same.
impl Drop for Leftovers {
    fn drop(&mut self) {
        let mut collected = self.collected.lock().unwrap_or_else(PoisonError::into_inner);
        let committed = std::mem::take(&mut collected.committed);
        let mut back: Vec<Uuid> = std::mem::take(&mut collected.doubtful);
        // Recorded in a transaction that had not ended: cancelled, perhaps while `COMMIT` ran.
        back.extend(collected.pending.drain(..).map(|e| e.id));
        let doubtful = !back.is_empty();
        for event in committed {
            if let Err(event) = collected.queue.offer(event) {
                back.push(event.id);
            }
        }
        if back.is_empty() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let pool = self.pool.clone();
        runtime.spawn(async move {
            // A commit whose answer was lost lands within moments, if at all: look once it has.
            if doubtful {
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            return_to_relay(&pool, &back).await;
        });
    }
}

/// Marks `ids` unpublished (those that exist and are not done), so the relay delivers them. Tried a
/// few times: the database may be what failed. What is still marked after that waits for the next
/// start-up, which hands every incomplete event over again.
async fn return_to_relay(pool: &DbPool, ids: &[Uuid]) {
    let mut delay = Duration::from_millis(500);
    for _ in 0..6 {
        let returned = async {
            let mut conn = pool.get().await?;
            diesel::update(outbox_events::table.filter(outbox_events::id.eq_any(ids)))
                .filter(outbox_events::completed_at.is_null())
                .set(outbox_events::published_at.eq(None::<time::OffsetDateTime>))
                .execute(&mut conn)
                .await
                .map_err(crate::DbError::from)
        };
        match returned.await {
            Ok(_) => return,
            Err(error) => tracing::warn!(count = ids.len(), %error, "could not return events to the outbox relay"),
        }
        tokio::time::sleep(delay).await;
        delay *= 2;
    }
}
