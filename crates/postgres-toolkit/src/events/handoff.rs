//! Committed events handed straight to the in-process bus, without the relay's claim.
//!
//! The relay finds an event by reading the outbox and claims it with an `UPDATE` (a new row version,
//! an entry in every outbox index, a commit with its WAL flush) before the bus gets it. Work that
//! runs inside [`handing_over`] skips all of that: [`record_event`](super::record_event) inserts its
//! events already marked published, and once their transaction has committed they go to the bus's
//! queue from memory. What a crash loses is safe as before: the events stay in `outbox_in_flight`
//! (the insert enters them there), and start-up hands them to the bus again
//! (`OutboxRelay::requeue_incomplete`; the inbox makes the second delivery harmless).
//!
//! An event goes the relay's way instead (inserted unpublished) when no bus queue is registered on
//! the pool (a durable bus publishes while its rows are locked), when the queue holds the relay's
//! high-water mark already, or when it is recorded by a second transaction the work opened beside
//! its first. An event that was inserted published but could not be queued (the queue filled up or
//! closed) is marked unpublished again by a task of its own, so the relay delivers it; one whose
//! commit's outcome is unknown (`COMMIT` failed, or the work was dropped while it ran) too, once the
//! transaction's id (read inside it) says it committed. Those tasks try until the database answers.
//!
//! The relay is woken (`DbPool::wake_relay`) only when the work left it events: inserted unpublished,
//! or marked so again. Events handed over are no work for it, and a claim that finds nothing costs a
//! transaction (docs/adr/0014-events-handed-over-from-memory.md).

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use shared_kernel::EventEnvelope;
use uuid::Uuid;

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
    /// The transaction that opened when none was: only its events are handed over (a second one
    /// opened beside it leaves its events to the relay, since whose event is whose is not known).
    primary_open: bool,
    /// The primary transaction's id (`pg_current_xact_id`), once its events' insert answered.
    primary_xid: Option<i64>,
    /// Recorded inside the primary transaction.
    pending: Vec<EventEnvelope>,
    /// Committed: to hand over when the work ends.
    committed: Vec<EventEnvelope>,
    /// Their commit may or may not have landed: the transaction's id tells, once it has ended.
    doubtful: Vec<(Option<i64>, Vec<Uuid>)>,
    /// Events were recorded for the relay to claim (inserted unpublished).
    left_to_relay: bool,
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
        // Every event goes the relay's way.
        let output = work.await;
        pool.wake_relay();
        return output;
    };
    let collected = Arc::new(Mutex::new(Collected {
        queue,
        open: 0,
        primary_open: false,
        primary_xid: None,
        pending: Vec::new(),
        committed: Vec::new(),
        doubtful: Vec::new(),
        left_to_relay: false,
    }));
    // Dropped before the end (the work was cancelled), the guard sends what is left to the relay.
    let guard = Leftovers { collected: collected.clone(), pool: pool.clone() };
    let output = COLLECTED.scope(collected, work).await;
    drop(guard); // hands the committed events over
    output
}

/// Called by `record_event` inside a transaction: whether `events` will be handed over from memory
/// after the commit (then they are inserted published).
pub(crate) fn will_hand_over<E: std::borrow::Borrow<EventEnvelope>>(events: &[E]) -> bool {
    with_collected(|collected| {
        let takes = collected.open == 1 && collected.primary_open && collected.queue.has_room();
        if takes {
            collected.pending.extend(events.iter().map(|e| e.borrow().clone()));
        } else {
            collected.left_to_relay = true;
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

/// A transaction begins on this task (not a savepoint). Whether it is a hand-over's primary
/// transaction, which must report its id ([`began`]) and its end ([`closed`]) as such.
pub(crate) fn opened() -> bool {
    with_collected(|collected| {
        collected.open += 1;
        let primary = collected.open == 1;
        if primary {
            collected.primary_open = true;
            collected.primary_xid = None;
        }
        primary
    })
    .unwrap_or(false)
}

/// The primary transaction's id, read inside it by the insert of the events it hands over.
pub(crate) fn began(xid: i64) {
    with_collected(|collected| collected.primary_xid = Some(xid));
}

/// The transaction begun by [`opened`] ended.
pub(crate) fn closed(primary: bool, ending: Ending) {
    with_collected(|collected| {
        collected.open = collected.open.saturating_sub(1);
        if !primary {
            return;
        }
        collected.primary_open = false;
        let pending = std::mem::take(&mut collected.pending);
        match ending {
            Ending::Committed => collected.committed.extend(pending),
            Ending::RolledBack => {}
            Ending::Unknown => {
                collected.doubtful.push((collected.primary_xid, pending.iter().map(|e| e.id).collect()));
            }
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
        let mut doubtful = std::mem::take(&mut collected.doubtful);
        // Recorded in a primary transaction that had not ended: cancelled, perhaps while `COMMIT` ran.
        if !collected.pending.is_empty() {
            let ids = collected.pending.drain(..).map(|e| e.id).collect();
            doubtful.push((collected.primary_xid, ids));
        }
        let mut refused = Vec::new();
        for event in committed {
            if let Err(event) = collected.queue.offer(event) {
                refused.push(event.id);
            }
        }
        // Without its id the transaction never sent `COMMIT`: the id comes with the answer of the
        // events' insert, which `COMMIT` waits for. Nothing landed.
        let doubtful: Vec<(i64, Vec<Uuid>)> =
            doubtful.into_iter().filter_map(|(xid, ids)| xid.map(|xid| (xid, ids))).collect();
        if collected.left_to_relay {
            self.pool.wake_relay();
        }
        if refused.is_empty() && doubtful.is_empty() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        let pool = self.pool.clone();
        runtime.spawn(async move {
            if !refused.is_empty() {
                return_to_relay(&pool, &refused).await;
            }
            for (xid, ids) in doubtful {
                if committed_in_the_end(&pool, xid).await {
                    return_to_relay(&pool, &ids).await;
                }
            }
        });
    }
}

/// The longest wait between two tries of a step below: the database may be what failed.
const MAX_RETRY_DELAY: Duration = Duration::from_secs(30);

/// Runs `step` until it answers (`Ok(None)`: not yet, ask again), backing off between tries.
async fn until_answered<T, Step: Future<Output = Result<Option<T>, crate::DbError>>>(
    what: &str,
    mut step: impl FnMut() -> Step,
) -> T {
    let mut delay = Duration::from_millis(200);
    loop {
        match step().await {
            Ok(Some(answer)) => return answer,
            Ok(None) => {}
            Err(error) => tracing::warn!(%error, "could not {what}; trying again"),
        }
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(MAX_RETRY_DELAY);
    }
}

/// Waits until transaction `xid` has ended; whether it committed. PostgreSQL keeps the answer
/// (`pg_xact_status`) until the id is frozen away, long after any wait here; an answer it no longer
/// has counts as committed (marking rows that do not exist changes nothing).
async fn committed_in_the_end(pool: &DbPool, xid: i64) -> bool {
    #[derive(QueryableByName)]
    struct Status {
        #[diesel(sql_type = diesel::sql_types::Nullable<diesel::sql_types::Text>)]
        status: Option<String>,
    }
    until_answered("learn how a transaction with handed-over events ended", || async {
        let mut conn = pool.get().await?;
        let found: Status = diesel::sql_query("SELECT pg_xact_status($1::text::xid8) AS status")
            .bind::<diesel::sql_types::BigInt, _>(xid)
            .get_result(&mut conn)
            .await?;
        Ok(match found.status.as_deref() {
            Some("in progress") => None,
            Some("aborted") => Some(false),
            _ => Some(true),
        })
    })
    .await
}

/// Marks `ids` unpublished (those that are not done), and wakes the relay to deliver them.
async fn return_to_relay(pool: &DbPool, ids: &[Uuid]) {
    until_answered("return events to the outbox relay", || async {
        let conn = pool.get().await?;
        super::relay::unpublish(&conn, ids).await?;
        Ok(Some(()))
    })
    .await;
    pool.wake_relay();
}
