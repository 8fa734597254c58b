//! Request writes that share a commit.
//!
//! A `POST /customers` or an order's confirmation is one short transaction whose cost is mostly its
//! `BEGIN`, its `COMMIT` and the WAL flush behind it (docs/adr/0012-shared-commits.md). A [`SharedCommit`] hands such a write to a [`GroupCommit`] queue: the writes that arrive
//! while a transaction commits go together into the next one, each with its own statements, all
//! pipelined on one connection, and each request is answered after the commit that made its change
//! durable, with its own outcome. A lone write waits only for one turn of its worker's event loop,
//! which lets requests already read from their sockets join it, and is then a transaction of its own. A
//! batch whose writes came with company waits up to a millisecond for as many again
//! ([`Batched::COMPANY_WAIT`]), so a steady set of clients keeps sharing one commit instead of taking
//! turns in two.
//!
//! A batch that fails on a statement (a taken email, a compare-and-set that missed, a row lock
//! waited for longer than [`Opening::LockWaitsLimited`] allows) or whose `COMMIT` the server refused
//! (a deferred check) rolled back whole and is done again one write per transaction, so each request
//! gets the answer it would have got alone. A batch whose connection broke at `BEGIN`, `COMMIT` or
//! the rollback (the commit may have landed) is not done again: every request in it answers 503, as
//! a lone write's does. A queue holds at most [`Batched::CAPACITY`] writes (then 503 at once), and a
//! write whose caller left before its batch began is never done.
//!
//! Each HTTP worker has a queue of its own, run on its own thread with its own part of the pool
//! ([`DbPool`]). A write inside a request transaction (`Idempotency-Key`, `If-Match`) belongs to
//! that transaction and is never queued.

use std::hash::Hash;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use diesel::result::Error as DieselError;
use diesel_async::AsyncPgConnection;
use shared_kernel::StorageError;

use crate::events::handing_over;
use crate::group_commit::{Batched, GroupCommit};
use crate::pipeline::{transaction, transaction_opened, Opening};
use crate::request_tx::in_request_transaction;
use crate::storage::{connect, Constraints};
use crate::DbPool;

/// One request's write: statements sent on a connection inside a transaction that other requests'
/// writes may share.
#[async_trait]
pub trait TransactionWrite: Send + Sync + 'static {
    type Written: Send + 'static;
    type Key: Hash + Ord;

    /// Writes with equal keys never share a transaction (the later one must see the earlier); a
    /// transaction sends its writes in key order, so two transactions whose writes conflict by key
    /// (the same order, the same address) wait for each other in one order and cannot deadlock. A
    /// cycle through something else (another unique key) is broken by PostgreSQL's deadlock check,
    /// and the batch is done again write by write.
    fn key(&self) -> Self::Key;
    /// Sends the statements on `conn` (pipelined: do not wait between them needlessly). Any error
    /// rolls back the whole transaction; a condition that missed answers `RollbackTransaction`.
    async fn write(&self, conn: &AsyncPgConnection) -> Result<Self::Written, DieselError>;
    /// Sends the statements of `writes`, in this order, as [`write`](Self::write) would for each (one
    /// outcome per write). The default sends each write's own, pipelined; a kind whose rows can go
    /// several to a statement overrides it, and pays a statement's fixed cost once for the batch.
    async fn write_together(writes: &[&Self], conn: &AsyncPgConnection) -> Result<Vec<Self::Written>, DieselError>
    where
        Self: Sized,
    {
        futures_util::future::try_join_all(writes.iter().map(|write| write.write(conn))).await
    }
}

/// Why a write failed: a statement (mapped by the caller's context, which knows its constraints),
/// or the storage itself.
#[derive(Debug)]
pub enum WriteError {
    Db(DieselError),
    Storage(StorageError),
}

impl WriteError {
    /// The port's error: a statement's through the context's `constraints`.
    pub fn resolve(self, constraints: &Constraints) -> StorageError {
        match self {
            Self::Db(error) => constraints.map(error),
            Self::Storage(error) => error,
        }
    }
}

impl std::fmt::Display for WriteError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Db(error) => error.fmt(f),
            Self::Storage(error) => error.fmt(f),
        }
    }
}

/// A part's queue, once started.
type QueueSlot<W> = Mutex<Option<GroupCommit<Transactions<W>>>>;

/// Writes of one kind, sharing commits; cheap to clone (clones share the queues).
pub struct SharedCommit<W: TransactionWrite> {
    pool: DbPool,
    /// One queue per part of the pool (see [`DbPool::part_number`]), started on first use by the
    /// thread that owns the part, and again if that thread's runtime has gone.
    queues: Arc<[QueueSlot<W>]>,
    counts: Arc<Counts>,
}

impl<W: TransactionWrite> Clone for SharedCommit<W> {
    fn clone(&self) -> Self {
        Self { pool: self.pool.clone(), queues: self.queues.clone(), counts: self.counts.clone() }
    }
}

/// How many transactions the queued writes took, and how many writes they carried.
#[derive(Default)]
struct Counts {
    transactions: AtomicU64,
    writes: AtomicU64,
}

impl<W: TransactionWrite> SharedCommit<W> {
    pub fn new(pool: DbPool) -> Self {
        let queues = (0..pool.parts()).map(|_| Mutex::new(None)).collect();
        Self { pool, queues, counts: Arc::default() }
    }

    /// Writes `write` and commits it, with whatever other writes of this kind are waiting.
    pub async fn write(&self, write: W) -> Result<W::Written, WriteError> {
        if in_request_transaction() {
            // Boxed: this rarer path's state would otherwise sit in every queued write's future.
            return Box::pin(self.write_in_request_transaction(write)).await;
        }
        self.queue().submit(write).await
    }

    /// Part of the request's transaction (a savepoint of it), committed with it.
    async fn write_in_request_transaction(&self, write: W) -> Result<W::Written, WriteError> {
        let mut conn = connect(&self.pool).await.map_err(WriteError::Storage)?;
        transaction(&mut conn, async |conn| write.write(conn).await).await.map_err(WriteError::Db)
    }

    /// (transactions, writes) the queues have committed or tried so far.
    pub fn counts(&self) -> (u64, u64) {
        (self.counts.transactions.load(Ordering::Relaxed), self.counts.writes.load(Ordering::Relaxed))
    }

    fn queue(&self) -> GroupCommit<Transactions<W>> {
        let mut slot = self.queues[self.pool.part_number()].lock().unwrap_or_else(PoisonError::into_inner);
        match &*slot {
            Some(queue) if !queue.is_closed() => queue.clone(),
            _ => {
                let queue = GroupCommit::start(Transactions {
                    pool: self.pool.clone(),
                    counts: self.counts.clone(),
                    writes: PhantomData,
                });
                *slot = Some(queue.clone());
                queue
            }
        }
    }
}

/// Where a batch failed: its statements (then it rolled back, and the writes may be done again), or
/// the transaction around them (`BEGIN`, `COMMIT`, a failed rollback: whether it landed is unknown).
enum Phase {
    Statements(DieselError),
    Transaction(DieselError),
}

impl From<DieselError> for Phase {
    fn from(error: DieselError) -> Self {
        Self::Transaction(error)
    }
}

/// The batches: every write of one in a single transaction on a pooled connection.
struct Transactions<W> {
    pool: DbPool,
    counts: Arc<Counts>,
    writes: PhantomData<fn(W)>,
}

#[async_trait]
impl<W: TransactionWrite> Batched for Transactions<W> {
    type Request = W;
    type Outcome = W::Written;
    type Error = WriteError;
    type Key = W::Key;
    /// Every write here is a client waiting for its answer, and most clients send again as soon as
    /// they have it (docs/adr/0012-shared-commits.md).
    const COMPANY_WAIT: Duration = Duration::from_millis(1);

    fn key(write: &W) -> W::Key {
        write.key()
    }

    async fn many(&self, writes: &[&W]) -> Result<Vec<W::Written>, WriteError> {
        self.counts.transactions.fetch_add(1, Ordering::Relaxed);
        self.counts.writes.fetch_add(writes.len() as u64, Ordering::Relaxed);
        // The queue's task runs in no request transaction: this is a pooled connection.
        let mut conn = connect(&self.pool).await.map_err(WriteError::Storage)?;
        let mut in_key_order: Vec<usize> = (0..writes.len()).collect();
        in_key_order.sort_by_cached_key(|&at| writes[at].key());
        // Past the limit a shared batch fails and its writes are done one by one; a write alone waits
        // up to the statement timeout.
        let opening = if writes.len() > 1 { Opening::LockWaitsLimited } else { Opening::Plain };
        // This task is the queue's: nobody cancels it between the commit and the hand-over.
        let written = handing_over(
            &self.pool,
            transaction_opened(&mut conn, opening, async |conn| -> Result<Vec<W::Written>, Phase> {
                let ordered: Vec<&W> = in_key_order.iter().map(|&at| writes[at]).collect();
                W::write_together(&ordered, conn).await.map_err(Phase::Statements)
            }),
        )
        .await
        .map_err(|phase| match phase {
            Phase::Statements(error) => WriteError::Db(error),
            // The server answered `BEGIN` or `COMMIT` with an error (a deferred check, a serialization
            // failure): the transaction is known rolled back, and each write may be done again alone.
            Phase::Transaction(error) if definitely_rolled_back(&error) => WriteError::Db(error),
            Phase::Transaction(error) => {
                WriteError::Storage(StorageError::Unavailable(format!("a shared commit's outcome is unknown: {error}")))
            }
        })?;
        // Back in the order asked.
        let mut answers: Vec<Option<W::Written>> = std::iter::repeat_with(|| None).take(writes.len()).collect();
        for (at, outcome) in in_key_order.into_iter().zip(written) {
            answers[at] = Some(outcome);
        }
        Ok(answers.into_iter().flatten().collect())
    }

    fn shared_failure(error: &WriteError) -> Option<WriteError> {
        match error {
            // A statement failed and the transaction rolled back: each write again alone gets its own answer.
            WriteError::Db(_) => None,
            // `BEGIN`, `COMMIT` or the rollback failed (the connection broke, perhaps after the commit
            // landed), or no connection: doing a write again could do it twice.
            WriteError::Storage(error) => Some(WriteError::Storage(error.clone())),
        }
    }

    fn lost() -> WriteError {
        WriteError::Storage(StorageError::Unknown("a batch of writes was lost".to_owned()))
    }

    fn busy() -> WriteError {
        WriteError::Storage(StorageError::Unavailable("too many writes are queued".to_owned()))
    }
}

/// Whether a failed `BEGIN` or `COMMIT` certainly left nothing behind: the server answered it with an
/// error. A connection that broke (no answer) may have committed.
fn definitely_rolled_back(error: &DieselError) -> bool {
    use diesel::result::DatabaseErrorKind::{ClosedConnection, UnableToSendCommand};
    matches!(error, DieselError::DatabaseError(kind, _) if !matches!(kind, ClosedConnection | UnableToSendCommand))
}
