//! A request's own transaction. While a keyed (`Idempotency-Key`) or
//! conditional (`If-Match`) request runs, every repository it calls through
//! [`crate::storage::connect`] works on one connection inside one transaction,
//! so the change, its outbox events, the precondition check and the stored
//! answer commit together or not at all. Repositories need no change: their
//! own transactions become savepoints of this one.

use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use diesel::result::Error as DieselError;
use diesel_async::{AsyncConnection, AsyncPgConnection, TransactionManager};
use shared_kernel::StorageError;
use tokio::sync::{Mutex, OwnedMutexGuard};

use crate::db::{DbConn, DbPool, SharedConn};

type TxManager = <AsyncPgConnection as AsyncConnection>::TransactionManager;

tokio::task_local! {
    /// The request transaction the current task runs in, if any.
    static REQUEST_TX: Arc<Shared>;
}

/// Work to do once the request transaction has committed.
pub type AfterCommit = Pin<Box<dyn Future<Output = ()> + Send>>;

/// What a request transaction shares with the task running inside it.
struct Shared {
    conn: Arc<Mutex<DbConn>>,
    after_commit: std::sync::Mutex<Vec<AfterCommit>>,
}

/// A connection from [`crate::storage::connect`]: the pool's, or the request transaction's.
// Not boxed: every request checks out one, and boxing would allocate for it; it is moved once.
#[allow(clippy::large_enum_variant)]
pub enum Conn {
    Pooled(DbConn),
    Request(OwnedMutexGuard<DbConn>),
}

impl Deref for Conn {
    type Target = AsyncPgConnection;

    fn deref(&self) -> &AsyncPgConnection {
        match self {
            Conn::Pooled(conn) => conn,
            Conn::Request(guard) => guard,
        }
    }
}

impl DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut AsyncPgConnection {
        match self {
            Conn::Pooled(conn) => conn,
            Conn::Request(guard) => guard,
        }
    }
}

/// A connection for reads (`crate::storage::connect_shared`): the request transaction's, or a pooled
/// one other reads may share; only ever used through `&`.
pub enum ReadConn {
    Request(OwnedMutexGuard<DbConn>),
    Shared(SharedConn),
}

impl Deref for ReadConn {
    type Target = AsyncPgConnection;

    fn deref(&self) -> &AsyncPgConnection {
        match self {
            ReadConn::Request(guard) => guard,
            ReadConn::Shared(conn) => conn,
        }
    }
}

/// How often a request asked for a second connection while holding its transaction's
/// (see [`current`]); tests assert it stays 0.
static BUSY_FALLBACKS: AtomicU64 = AtomicU64::new(0);

pub fn busy_fallbacks() -> u64 {
    BUSY_FALLBACKS.load(Ordering::Relaxed)
}

/// The request transaction's connection when the current task runs inside one.
/// A second use while the first is still held (which a request should never
/// need) gets a pooled connection instead of waiting on itself forever.
pub(crate) fn current() -> Option<Conn> {
    current_guard().map(Conn::Request)
}

/// [`current`]'s connection, as the lock guard it is.
pub(crate) fn current_guard() -> Option<OwnedMutexGuard<DbConn>> {
    let conn = REQUEST_TX.try_with(|shared| shared.conn.clone()).ok()?;
    match conn.try_lock_owned() {
        Ok(guard) => Some(guard),
        Err(_) => {
            BUSY_FALLBACKS.fetch_add(1, Ordering::Relaxed);
            tracing::warn!("the request transaction's connection is busy; using a separate connection");
            None
        }
    }
}

/// Whether the current task runs inside a request transaction.
pub fn in_request_transaction() -> bool {
    REQUEST_TX.try_with(|_| ()).is_ok()
}

/// Runs `work` after the current request transaction commits (dropped if it rolls back);
/// outside one, does nothing: the caller has done the work already. For caches that must
/// not keep what a concurrent request read before the change became visible.
pub fn after_commit(work: AfterCommit) {
    let _ = REQUEST_TX.try_with(|shared| {
        if let Ok(mut pending) = shared.after_commit.lock() {
            pending.push(work);
        }
    });
}

/// Runs `work` in a savepoint of the current request transaction (outside one, runs it as it is):
/// when `work` answers `Err`, everything it wrote is undone and the transaction goes on, so one unit
/// of many (an import's row) costs only its own writes when it fails, even a statement that failed
/// without a savepoint of its own. A savepoint the server cannot release (such a failure inside a
/// unit that answered `Ok`) is rolled back and answered as a storage error.
pub async fn in_savepoint<T, E, F>(work: F) -> Result<Result<T, E>, StorageError>
where
    F: Future<Output = Result<T, E>>,
{
    let busy = || StorageError::Unknown("the request transaction's connection is busy".to_owned());
    let Some(mut conn) = current_guard() else {
        return if in_request_transaction() { Err(busy()) } else { Ok(work.await) };
    };
    TxManager::begin_transaction(&mut **conn).await.map_err(storage_error)?;
    drop(conn);
    let worked = work.await;
    let mut conn = current_guard().ok_or_else(busy)?;
    match worked {
        Ok(value) => match TxManager::commit_transaction(&mut **conn).await {
            Ok(()) => Ok(Ok(value)),
            Err(error) => {
                let _ = TxManager::rollback_transaction(&mut **conn).await;
                Err(storage_error(error))
            }
        },
        Err(refused) => {
            TxManager::rollback_transaction(&mut **conn).await.map_err(storage_error)?;
            Ok(Err(refused))
        }
    }
}

/// An open transaction on a connection of its own; see the module docs.
/// Dropped unfinished (the request's future was dropped: the client went away,
/// the server is stopping), its connection is taken out of the pool and closed,
/// so the server rolls back and releases its locks at once.
pub struct RequestTransaction {
    shared: Arc<Shared>,
    finished: bool,
}

impl RequestTransaction {
    pub async fn begin(pool: &DbPool) -> Result<Self, StorageError> {
        let mut conn = pool.get().await.map_err(|e| StorageError::Unavailable(e.to_string()))?;
        TxManager::begin_transaction(&mut *conn).await.map_err(storage_error)?;
        let shared = Shared { conn: Arc::new(Mutex::new(conn)), after_commit: std::sync::Mutex::new(Vec::new()) };
        Ok(Self { shared: Arc::new(shared), finished: false })
    }

    /// Runs `work` with this transaction as the connection of every repository it calls.
    pub async fn run<F: Future>(&self, work: F) -> F::Output {
        REQUEST_TX.scope(self.shared.clone(), work).await
    }

    /// The connection, for statements of the mechanism itself (not while `run` is working).
    pub async fn connection(&self) -> OwnedMutexGuard<DbConn> {
        self.shared.conn.clone().lock_owned().await
    }

    /// Commits, then runs the work registered with [`after_commit`].
    pub async fn commit(mut self) -> Result<(), StorageError> {
        self.finished = true;
        {
            let mut conn = self.shared.conn.clone().lock_owned().await;
            TxManager::commit_transaction(&mut **conn).await.map_err(storage_error)?;
        }
        let pending = self.shared.after_commit.lock().map(|mut p| std::mem::take(&mut *p)).unwrap_or_default();
        for work in pending {
            work.await;
        }
        Ok(())
    }

    /// Rolls back; a failure leaves the connection marked broken, so the pool drops it.
    pub async fn rollback(mut self) {
        self.finished = true;
        let mut conn = self.shared.conn.clone().lock_owned().await;
        if let Err(error) = TxManager::rollback_transaction(&mut **conn).await {
            tracing::warn!(%error, "could not roll back a request transaction");
        }
    }
}

impl Drop for RequestTransaction {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        // Unfinished: the connection must not wait in the pool still inside its transaction,
        // holding the key's advisory lock and any row lock, until its next checkout.
        let shared = self.shared.clone();
        let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
        runtime.spawn(async move {
            let mut conn = shared.conn.clone().lock_owned().await;
            // Every level: dropped inside a repository's savepoint, one rollback only leaves the
            // savepoint, and the transaction would stay open.
            while matches!(TxManager::transaction_manager_status_mut(&mut **conn).transaction_depth(), Ok(Some(_))) {
                if TxManager::rollback_transaction(&mut **conn).await.is_err() {
                    // The manager's state is unknown after a dropped statement: roll back by hand;
                    // the connection stays marked in-transaction, so the pool discards it.
                    if let Err(error) =
                        diesel_async::RunQueryDsl::execute(diesel::sql_query("ROLLBACK"), &mut **conn).await
                    {
                        tracing::warn!(%error, "could not roll back an abandoned request transaction");
                    }
                    break;
                }
            }
        });
    }
}

fn storage_error(error: DieselError) -> StorageError {
    crate::storage::Constraints::new(&[]).map(error)
}
