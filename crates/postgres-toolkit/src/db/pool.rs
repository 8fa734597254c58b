//! The connection pool, split into one part per HTTP worker thread.
//!
//! A connection's driver (the task that reads and writes its socket) runs on the runtime of the
//! thread that opened it. actix-web serves requests on several single-threaded runtimes, one per
//! worker; with one shared pool, a request on one worker often got a connection driven by another,
//! and every statement crossed threads twice (a wake-up there, a wake-up back). Each worker now
//! draws from a part of its own, so its connections are opened, driven and used on its own thread.
//! Every other thread (start-up, sweeps, tools, tests) shares one more part, so none of its
//! connections lands in a worker's part.
//!
//! A part admits as many checkouts at once as it may hold connections, until the server refuses a
//! new one for want of connection slots (its `max_connections`, a role's or database's limit: other
//! clients hold the rest). Then the part works with the connections it has: each refused opening
//! takes one admission away, and the request waits for a connection to come back instead of failing
//! while the part holds others. After [`REFUSAL_COOL_OFF`] the admissions come back and the part
//! tries to grow again. A part holding no connection at all answers the refusal as it is (503).
//!
//! A read outside any transaction (a by-id read) can share a connection ([`DbPool::get_shared`]):
//! when every connection of its part is in use, it joins a connection another such read holds, and
//! its statement is pipelined on that connection behind the others (tokio-postgres sends it at once;
//! the server answers in turn). Exclusive checkouts left the server idle between one read's answer and
//! the next read's statement, while requests queued for a connection
//! (docs/adr/0020-reads-that-share-a-connection.md).

use std::cell::OnceCell;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, Weak};
use std::time::{Duration, Instant};

use deadpool::managed::TimeoutType;
use deadpool::Status;
use diesel_async::pooled_connection::deadpool::{Object, Pool, PoolError};
use diesel_async::AsyncPgConnection;
use tokio::sync::{OwnedSemaphorePermit, Semaphore, TryAcquireError};

use crate::events::{DirectQueue, OutboxSignal};

/// How long a part that met a refusal works with the connections it has before trying to grow.
pub const REFUSAL_COOL_OFF: Duration = Duration::from_secs(10);

/// A pooled connection with its part's admission; dereferences to the connection. Dropped inside a
/// transaction (its holder's future was dropped mid-way: the client left), it is taken out of the
/// pool and closed at once, so the server rolls back and frees its locks now, not at the connection's
/// next checkout (docs/bounded-work.md).
pub struct DbConn {
    /// `None` only while it is dropped.
    connection: Option<Object<AsyncPgConnection>>,
    _admission: OwnedSemaphorePermit,
}

impl Deref for DbConn {
    type Target = AsyncPgConnection;

    fn deref(&self) -> &AsyncPgConnection {
        self.connection.as_deref().unwrap_or_else(|| unreachable!("a connection is only taken when dropped"))
    }
}

impl DerefMut for DbConn {
    fn deref_mut(&mut self) -> &mut AsyncPgConnection {
        self.connection.as_deref_mut().unwrap_or_else(|| unreachable!("a connection is only taken when dropped"))
    }
}

impl Drop for DbConn {
    fn drop(&mut self) {
        use diesel_async::{AsyncConnection, TransactionManager};
        type TxManager = <AsyncPgConnection as AsyncConnection>::TransactionManager;
        let Some(mut connection) = self.connection.take() else { return };
        let settled =
            matches!(TxManager::transaction_manager_status_mut(&mut *connection).transaction_depth(), Ok(None));
        if !settled {
            // Out of the pool: dropping it closes its socket, and PostgreSQL rolls back at once.
            drop(Object::take(connection));
        }
    }
}

/// A pooled connection reads outside any transaction share; dereferences to the connection, never mutably,
/// so no transaction can begin on it. The last holder to drop it gives it back to the pool.
#[derive(Clone)]
pub struct SharedConn(Arc<DbConn>);

impl Deref for SharedConn {
    type Target = AsyncPgConnection;

    fn deref(&self) -> &AsyncPgConnection {
        &self.0
    }
}

/// How many reads may share one connection at most: a slow statement delays the ones queued behind it.
const READS_SHARING_AT_MOST: usize = 16;

/// One part: its connections and how many checkouts it admits at once (see the module's comment).
#[derive(Clone)]
pub(super) struct Part {
    connections: Pool<AsyncPgConnection>,
    admission: Arc<Admission>,
    shared_reads: Arc<SharedReads>,
}

/// The connections of a part that reads hold for sharing.
#[derive(Default)]
struct SharedReads(Mutex<Vec<Weak<DbConn>>>);

impl SharedReads {
    /// The held connection with the fewest reads on it, if one has room for another.
    fn join(&self) -> Option<Arc<DbConn>> {
        let held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        held.iter()
            .map(|conn| (conn.strong_count(), conn))
            .filter(|(reads, _)| (1..READS_SHARING_AT_MOST).contains(reads))
            .min_by_key(|(reads, _)| *reads)
            .and_then(|(_, conn)| conn.upgrade())
    }

    fn offer(&self, conn: &Arc<DbConn>) {
        let mut held = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        held.retain(|conn| conn.strong_count() > 0);
        held.push(Arc::downgrade(conn));
    }
}

struct Admission {
    permits: Arc<Semaphore>,
    wait: Duration,
    /// Admissions taken away by refusals, given back after the cool-off.
    withdrawn: AtomicUsize,
    /// Checkouts waiting for an admission (the pool's `waiting` figure).
    waiting: AtomicUsize,
    last_refusal: Mutex<Option<Instant>>,
}

impl Part {
    pub(super) fn new(connections: Pool<AsyncPgConnection>, wait: Duration) -> Self {
        let size = connections.status().max_size;
        let admission = Admission {
            permits: Arc::new(Semaphore::new(size)),
            wait,
            withdrawn: AtomicUsize::new(0),
            waiting: AtomicUsize::new(0),
            last_refusal: Mutex::new(None),
        };
        Self { connections, admission: Arc::new(admission), shared_reads: Arc::default() }
    }

    /// A connection for a read to share: one of its own while the part has one free (offered to the
    /// reads that come while none is), else one another read holds, else the wait of [`Part::get`].
    async fn get_shared(&self) -> Result<SharedConn, PoolError> {
        if self.admission.permits.available_permits() == 0 {
            if let Some(conn) = self.shared_reads.join() {
                return Ok(SharedConn(conn));
            }
        }
        let conn = Arc::new(self.get().await?);
        self.shared_reads.offer(&conn);
        Ok(SharedConn(conn))
    }

    /// deadpool's figures, with the checkouts waiting for an admission counted as waiting.
    fn status(&self) -> Status {
        let status = self.connections.status();
        Status { waiting: status.waiting + self.admission.waiting.load(Ordering::Relaxed), ..status }
    }

    async fn get(&self) -> Result<DbConn, PoolError> {
        let admission = &self.admission;
        if admission.withdrawn.load(Ordering::Relaxed) > 0 {
            admission.give_back_after_cool_off();
        }
        let started = Instant::now();
        loop {
            let permit = match admission.permits.clone().try_acquire_owned() {
                Ok(permit) => permit,
                Err(TryAcquireError::Closed) => return Err(PoolError::Closed),
                Err(TryAcquireError::NoPermits) => admission.wait_for_permit(started).await?,
            };
            match self.connections.get().await {
                Ok(connection) => return Ok(DbConn { connection: Some(connection), _admission: permit }),
                Err(PoolError::Backend(error)) if refused_for_slots(&error) && self.connections.status().size > 0 => {
                    admission.withdraw(permit);
                    tracing::warn!(%error, "the database refused another connection; working with those open");
                }
                Err(error) => return Err(error),
            }
        }
    }
}

impl Admission {
    /// Waits (counted in [`Admission::waiting`]) for an admission, until `wait` after `started`.
    async fn wait_for_permit(&self, started: Instant) -> Result<OwnedSemaphorePermit, PoolError> {
        let _counted = Waiting::count(&self.waiting);
        let remaining = self.wait.saturating_sub(started.elapsed());
        tokio::time::timeout(remaining, self.permits.clone().acquire_owned())
            .await
            .map_err(|_| PoolError::Timeout(TimeoutType::Wait))?
            .map_err(|_| PoolError::Closed)
    }

    fn withdraw(&self, permit: OwnedSemaphorePermit) {
        permit.forget();
        self.withdrawn.fetch_add(1, Ordering::Relaxed);
        *self.last_refusal.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
    }

    fn give_back_after_cool_off(&self) {
        let mut last = self.last_refusal.lock().unwrap_or_else(PoisonError::into_inner);
        if last.is_some_and(|at| at.elapsed() >= REFUSAL_COOL_OFF) {
            *last = None;
            self.permits.add_permits(self.withdrawn.swap(0, Ordering::Relaxed));
        }
    }
}

/// A checkout counted as waiting while this lives: counted out however the wait ends, the request's
/// future dropped included.
struct Waiting<'a>(&'a AtomicUsize);

impl<'a> Waiting<'a> {
    fn count(waiting: &'a AtomicUsize) -> Self {
        waiting.fetch_add(1, Ordering::Relaxed);
        Self(waiting)
    }
}

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether opening a connection failed because the server has no slot left for it (SQLSTATE 53300:
/// "sorry, too many clients already", "too many connections for role/database", "remaining
/// connection slots are reserved"). The code does not survive diesel's connection error, so its
/// English text is matched; a server answering in another language gets the plain 503.
fn refused_for_slots(error: &impl std::fmt::Display) -> bool {
    let text = error.to_string();
    text.contains("too many clients") || text.contains("too many connections") || text.contains("slots are reserved")
}

/// Connections, one part per HTTP worker thread and one for every other thread (see the module's
/// comment). Cheap to clone.
#[derive(Clone)]
pub struct DbPool {
    /// The part of threads that are not HTTP workers (start-up, sweeps, tools, tests).
    shared: Part,
    /// One per worker; empty when the pool is not split.
    workers: Arc<[Part]>,
    /// The bus queue committed events are handed to from memory (`events::handoff`), once the bus
    /// that has one is started; shared by the clones.
    direct_queue: Arc<OnceLock<Arc<dyn DirectQueue>>>,
    /// Wakes the outbox relay when work on this pool leaves it events to claim (`events::handoff`).
    relay: Arc<OnceLock<OutboxSignal>>,
}

thread_local! {
    /// The worker number of an HTTP worker thread (see [`DbPool::bind_this_thread`]); given back
    /// when the thread ends.
    static WORKER: OnceCell<WorkerNumber> = const { OnceCell::new() };
}

/// The worker numbers live threads hold: a thread takes the lowest free one, so a worker actix
/// restarts on a new thread takes the number (and the part) of the one it replaces.
static TAKEN: Mutex<Vec<bool>> = Mutex::new(Vec::new());

struct WorkerNumber(usize);

impl WorkerNumber {
    fn take_lowest_free() -> Self {
        let mut taken = TAKEN.lock().unwrap_or_else(PoisonError::into_inner);
        let number = taken.iter().position(|held| !held).unwrap_or(taken.len());
        if number == taken.len() {
            taken.push(true);
        } else {
            taken[number] = true;
        }
        Self(number)
    }
}

impl Drop for WorkerNumber {
    fn drop(&mut self) {
        let mut taken = TAKEN.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(held) = taken.get_mut(self.0) {
            *held = false;
        }
    }
}

fn worker_number() -> Option<usize> {
    WORKER.with(|worker| worker.get().map(|number| number.0))
}

impl DbPool {
    pub(super) fn new(shared: Part, workers: Vec<Part>) -> Self {
        Self { shared, workers: workers.into(), direct_queue: Arc::default(), relay: Arc::default() }
    }

    /// Lets work on this pool hand committed events to `queue` from memory (`events::handoff`).
    /// The first call counts.
    pub fn hand_events_to(&self, queue: Arc<dyn DirectQueue>) {
        let _ = self.direct_queue.set(queue);
    }

    pub(crate) fn direct_queue(&self) -> Option<Arc<dyn DirectQueue>> {
        self.direct_queue.get().cloned()
    }

    /// Lets work on this pool wake the outbox relay when it leaves events for it (`events::handoff`).
    /// The first call counts.
    pub fn wake_relay_with(&self, relay: OutboxSignal) {
        let _ = self.relay.set(relay);
    }

    /// Wakes the outbox relay, if one was given ([`Self::wake_relay_with`]).
    pub fn wake_relay(&self) {
        if let Some(relay) = self.relay.get() {
            relay.notify();
        }
    }

    /// A connection from this thread's part. A worker waits (up to the wait timeout) for one of its
    /// own part's connections even while another part has one free: the price of affinity.
    pub async fn get(&self) -> Result<DbConn, PoolError> {
        self.part().get().await
    }

    /// A connection from this thread's part for reads outside any transaction, which other such
    /// reads may share meanwhile (see the module's comment). Use it through `&` only.
    pub async fn get_shared(&self) -> Result<SharedConn, PoolError> {
        self.part().get_shared().await
    }

    fn part(&self) -> &Part {
        match self.part_number() {
            0 => &self.shared,
            number => &self.workers[number - 1],
        }
    }

    /// How many parts there are: the shared one and one per worker.
    pub fn parts(&self) -> usize {
        self.workers.len() + 1
    }

    /// The part this thread draws from, below [`DbPool::parts`]: 0 the shared one, `1 + i` worker
    /// part `i`. Whatever keeps state per thread's connections (a queue run on that thread) keys it so.
    pub fn part_number(&self) -> usize {
        match worker_number() {
            Some(number) if !self.workers.is_empty() => 1 + number % self.workers.len(),
            _ => 0,
        }
    }

    /// Every part's figures added up (`max_size` counts the shared part too). A worker's part can be
    /// exhausted while another has connections free; `waiting` above zero shows it.
    pub fn status(&self) -> Status {
        std::iter::once(&self.shared).chain(self.workers.iter()).map(Part::status).fold(
            Status { max_size: 0, size: 0, available: 0, waiting: 0 },
            |sum, part| Status {
                max_size: sum.max_size + part.max_size,
                size: sum.size + part.size,
                available: sum.available + part.available,
                waiting: sum.waiting + part.waiting,
            },
        )
    }

    /// Makes the calling thread an HTTP worker with a part of its own (worker `i` gets part
    /// `i mod parts`). Call it on each worker thread as it starts; further calls on the same thread
    /// change nothing (actix builds a worker's app once per listening socket, and again on restart).
    pub fn bind_this_thread() {
        WORKER.with(|worker| {
            worker.get_or_init(WorkerNumber::take_lowest_free);
        });
    }
}

/// `total` connections split into `parts` sizes that add up to it, none empty (fewer parts when
/// there are fewer connections than parts).
pub(super) fn part_sizes(total: usize, parts: usize) -> Vec<usize> {
    let parts = parts.clamp(1, total.max(1));
    (0..parts).map(|i| total / parts + usize::from(i < total % parts)).map(|size| size.max(1)).collect()
}

#[cfg(test)]
mod tests {
    use super::{part_sizes, worker_number, DbPool};
    use std::sync::{Arc, Barrier};

    #[test]
    fn a_worker_keeps_its_number_and_an_ended_worker_gives_it_back() {
        let bind_twice = || {
            DbPool::bind_this_thread();
            let first = worker_number();
            DbPool::bind_this_thread();
            assert_eq!(worker_number(), first, "a second bind changes nothing");
            first.expect("bound")
        };
        let ended = std::thread::spawn(bind_twice).join().expect("thread");
        let replacement = std::thread::spawn(bind_twice).join().expect("thread");
        assert_eq!(replacement, ended, "a restarted worker takes the number it replaces");
        // Two live workers hold different numbers.
        let both_alive = Arc::new(Barrier::new(2));
        let workers: Vec<_> = (0..2)
            .map(|_| {
                let both_alive = both_alive.clone();
                std::thread::spawn(move || {
                    DbPool::bind_this_thread();
                    both_alive.wait();
                    worker_number().expect("bound")
                })
            })
            .collect();
        let numbers: Vec<usize> = workers.into_iter().map(|w| w.join().expect("thread")).collect();
        assert_ne!(numbers[0], numbers[1]);
        assert_eq!(worker_number(), None, "a thread that never bound is no worker");
    }

    #[test]
    fn parts_add_up_to_the_configured_size_and_none_is_empty() {
        assert_eq!(part_sizes(16, 2), vec![8, 8]);
        assert_eq!(part_sizes(15, 2), vec![8, 7]);
        assert_eq!(part_sizes(16, 1), vec![16]);
        assert_eq!(part_sizes(2, 4), vec![1, 1]);
        assert_eq!(part_sizes(1, 0), vec![1]);
        assert_eq!(part_sizes(0, 2), vec![1]);
    }
}
