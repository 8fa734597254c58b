//! A request's own transaction. While a keyed (`Idempotency-Key`) or
//! conditional (`If-Match`) request runs, every repository it calls through
//! [`crate::storage::connect`] works on one connection inside one transaction,
//! so the change, its outbox events, the precondition check and the stored
//! answer commit together or not at all. Repositories need no change: their
//! own transactions become savepoints of this one.

use std::future::Future;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use diesel::result::Error as DieselError;
use diesel_async::{AsyncConnection, AsyncPgConnection, TransactionManager};
use shared_kernel::StorageError;
use tokio::sync::{Mutex, OwnedMutexGuard};

use crate::db::{DbConn, DbPool};

type TxManager = <AsyncPgConnection as AsyncConnection>::TransactionManager;

tokio::task_local! {
    /// The connection of the request transaction the current task runs in, if any.
    static REQUEST_CONNECTION: Arc<Mutex<DbConn>>;
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
    let shared = REQUEST_CONNECTION.try_with(Arc::clone).ok()?;
    match shared.try_lock_owned() {
        Ok(guard) => Some(Conn::Request(guard)),
        Err(_) => {
            BUSY_FALLBACKS.fetch_add(1, Ordering::Relaxed);
            tracing::warn!("the request transaction's connection is busy; using a separate connection");
            None
        }
    }
}

/// Whether the current task runs inside a request transaction.
pub fn in_request_transaction() -> bool {
    REQUEST_CONNECTION.try_with(|_| ()).is_ok()
}

/// An open transaction on a connection of its own; see the module docs.
/// Dropped without [`commit`](Self::commit), the connection goes back to the
/// pool marked in-transaction, which the pool discards (the server rolls back).
pub struct RequestTransaction {
    conn: Arc<Mutex<DbConn>>,
}

impl RequestTransaction {
    pub async fn begin(pool: &DbPool) -> Result<Self, StorageError> {
        let mut conn = pool.get().await.map_err(|e| StorageError::Unavailable(e.to_string()))?;
        TxManager::begin_transaction(&mut *conn).await.map_err(storage_error)?;
        Ok(Self { conn: Arc::new(Mutex::new(conn)) })
    }

    /// Runs `work` with this transaction as the connection of every repository it calls.
    pub async fn run<F: Future>(&self, work: F) -> F::Output {
        REQUEST_CONNECTION.scope(self.conn.clone(), work).await
    }

    /// The connection, for statements of the mechanism itself (not while `run` is working).
    pub async fn connection(&self) -> OwnedMutexGuard<DbConn> {
        self.conn.clone().lock_owned().await
    }

    pub async fn commit(self) -> Result<(), StorageError> {
        let mut conn = self.conn.lock_owned().await;
        TxManager::commit_transaction(&mut **conn).await.map_err(storage_error)
    }

    /// Rolls back; a failure leaves the connection marked broken, so the pool drops it.
    pub async fn rollback(self) {
        let mut conn = self.conn.lock_owned().await;
        if let Err(error) = TxManager::rollback_transaction(&mut **conn).await {
            tracing::warn!(%error, "could not roll back a request transaction");
        }
    }
}

fn storage_error(error: DieselError) -> StorageError {
    crate::storage::Constraints::new(&[]).map(error)
}
