//! Statements sent at once on one connection (pipelined): one round trip for several.
//!
//! Futures of statements on a shared `&AsyncPgConnection` that are polled together are queued on
//! the connection in the order they are first polled and run by PostgreSQL in that order, inside
//! the caller's transaction. A write and the rows that follow from it (its history row, its outbox
//! event) then cost one round trip instead of one each; that took `POST /customers` from 1 216-1 385
//! to 1 587-1 682 writes/s on 2026-11-24 (docs/adr/0010-pipelined-transactions.md).

use std::future::Future;

use diesel::connection::TransactionDepthChange;
use diesel::result::Error as DieselError;
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection, TransactionManager};
use futures_util::future::join;

use crate::events::handoff;

type TxManager = <AsyncPgConnection as AsyncConnection>::TransactionManager;

/// A transaction whose `BEGIN` goes out together with its first statements: one round trip less
/// than diesel's `transaction`, which waits for `BEGIN`'s answer before it runs `work`. `work` gets
/// the connection shared, so the statements it sends together are pipelined behind `BEGIN`.
///
/// `BEGIN` is polled before `work`, so it is queued first and everything `work` sends runs inside
/// the transaction. The transaction is counted as open before `BEGIN` is sent: dropped before its
/// end (the client went away), the connection goes back to the pool marked in a transaction and the
/// pool closes it at its next checkout, as it does for diesel's own. `COMMIT` still waits for `work`'s answer, since `work`
/// may decide to roll back (a compare-and-set that missed). Inside a transaction already (a request
/// transaction), `work` runs in a savepoint, as in diesel's `transaction`.
pub async fn transaction<T, E, F>(conn: &mut AsyncPgConnection, work: F) -> Result<T, E>
where
    F: for<'c> AsyncFnOnce(&'c AsyncPgConnection) -> Result<T, E>,
    E: From<DieselError>,
{
    transaction_opened(conn, Opening::Plain, work).await
}

/// How a transaction opens: `BEGIN`, and for some a setting for that transaction alone. The two go
/// out as one simple query, which PostgreSQL answers once. Sent as a statement of its own, the
/// setting cost one answer more: a flush and a `send` for the server, a wake-up for Tally's thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    Plain,
    /// Commits without waiting for the WAL flush ([`bookkeeping`]).
    NoFlushWait,
    /// Gives up on a lock after 500 ms: the writes sharing a commit must not all wait for the slowest
    /// lock holder (`shared_commit`), nor a round of analysis for a migration (`db::statistics`).
    LockWaitsLimited,
    /// Reads several statements see in one snapshot (`REPEATABLE READ READ ONLY`): a list's page and
    /// the parts of its rows (docs/bounded-work.md). Inside a transaction already, it changes nothing.
    Snapshot,
}

impl Opening {
    /// `BEGIN` with the setting, as one simple query.
    fn begin(self) -> &'static str {
        match self {
            Self::Plain => "BEGIN",
            Self::NoFlushWait => "BEGIN; SET LOCAL synchronous_commit = off",
            Self::LockWaitsLimited => "BEGIN; SET LOCAL lock_timeout = '500ms'",
            Self::Snapshot => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
        }
    }

    /// The setting alone, `SET LOCAL …`, if any.
    fn setting(self) -> Option<&'static str> {
        self.begin().strip_prefix("BEGIN; ")
    }
}

/// [`transaction`], opened as `opening` says. Inside a transaction already, the setting is made in
/// the savepoint `work` runs in (and lasts, as `SET LOCAL` does, until the outer transaction ends).
pub async fn transaction_opened<T, E, F>(conn: &mut AsyncPgConnection, opening: Opening, work: F) -> Result<T, E>
where
    F: for<'c> AsyncFnOnce(&'c AsyncPgConnection) -> Result<T, E>,
    E: From<DieselError>,
{
    let status = TxManager::transaction_manager_status_mut(conn).transaction_state()?;
    if status.transaction_depth().is_some() {
        TxManager::begin_transaction(conn).await?;
        if let Some(setting) = opening.setting() {
            if let Err(error) = conn.batch_execute(setting).await {
                return finish(conn, Err(error.into())).await;
            }
        }
        let events_before = handoff::mark();
        let worked = work(conn).await;
        if worked.is_err() {
            handoff::rolled_back_to(events_before);
        }
        return finish(conn, worked).await;
    }
    status.change_transaction_depth(TransactionDepthChange::IncreaseDepth)?;
    // A hand-over's primary transaction learns its id from its events' insert (`record_event`), sent
    // with the rest: if its `COMMIT`'s answer is lost, the id tells later whether it landed.
    let primary = handoff::opened();
    let shared: &AsyncPgConnection = conn;
    let (begun, worked) = join(
        async {
            let mut begin_on = shared;
            begin_on.batch_execute(opening.begin()).await
        },
        work(shared),
    )
    .await;
    // An open connection answers `BEGIN` with an error only when it is failing altogether (or when
    // `BEGIN` alone was cancelled, which nothing here does), and then `work`'s statements behind it
    // failed too; the rollback below is sent all the same.
    let worked = match begun {
        Ok(()) => worked,
        Err(begin_error) => Err(begin_error.into()),
    };
    let work_failed = worked.is_err();
    let finished = finish(conn, worked).await;
    // Tell the hand-over (if `work` runs inside one) how the transaction ended.
    handoff::closed(
        primary,
        match (work_failed, finished.is_ok()) {
            (true, _) => handoff::Ending::RolledBack,
            (false, true) => handoff::Ending::Committed,
            (false, false) => handoff::Ending::Unknown,
        },
    );
    finished
}

/// A transaction of delivery bookkeeping (the relay's claim, completion marks) committed without
/// waiting for its WAL flush (`synchronous_commit = off`, for this transaction only). Losing such a
/// commit to a crash can only hand an event to the bus again, which the inbox makes harmless, and
/// PostgreSQL writes WAL in order, so any later commit that waited for its flush made this one
/// durable too. Each of these statements used to be a commit with a flush of its own, queued
/// behind the requests' commits for the one WAL writer (docs/adr/0014-events-handed-over-from-memory.md).
pub async fn bookkeeping<T, E, F>(conn: &mut AsyncPgConnection, work: F) -> Result<T, E>
where
    F: for<'c> AsyncFnOnce(&'c AsyncPgConnection) -> Result<T, E>,
    E: From<DieselError>,
{
    transaction_opened(conn, Opening::NoFlushWait, work).await
}

/// Commits when `work` succeeded, else rolls back and answers `work`'s error, as diesel does.
async fn finish<T, E: From<DieselError>>(conn: &mut AsyncPgConnection, worked: Result<T, E>) -> Result<T, E> {
    match worked {
        Ok(value) => TxManager::commit_transaction(conn).await.map(|()| value).map_err(E::from),
        Err(work_error) => match TxManager::rollback_transaction(conn).await {
            Ok(()) | Err(DieselError::BrokenTransactionManager) => Err(work_error),
            Err(rollback_error) => Err(rollback_error.into()),
        },
    }
}

/// A conditional write (a compare-and-set answering `None` when it missed) sent together with the
/// rows that follow from it. When the write missed, the followers ran for nothing, and when they
/// failed the write must not stand: in both cases the caller's transaction must roll back, which
/// the answer says by `None` and by an error. The write's own error comes first.
pub async fn write_with_followers<T, F, E>(
    write: impl Future<Output = Result<Option<T>, E>>,
    followers: impl Future<Output = Result<F, E>>,
) -> Result<Option<T>, E> {
    let (written, followed) = join(write, followers).await;
    match written? {
        None => Ok(None),
        Some(row) => followed.map(|_| Some(row)),
    }
}

/// [`write_with_followers`] for an update that returns its row (`get_result`), inside a transaction:
/// a miss (no row) answers `RollbackTransaction`, so the transaction and the followers roll back and
/// the caller tells a stale row from a gone one.
pub async fn row_or_roll_back<T, F>(
    update: impl Future<Output = Result<T, DieselError>>,
    followers: impl Future<Output = Result<F, DieselError>>,
) -> Result<T, DieselError> {
    use diesel::OptionalExtension;
    write_with_followers(async { update.await.optional() }, followers).await?.ok_or(DieselError::RollbackTransaction)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opening_with_a_setting_sends_it_with_begin_and_alone_in_a_savepoint() {
        assert_eq!(Opening::Plain.setting(), None);
        for opening in [Opening::NoFlushWait, Opening::LockWaitsLimited] {
            let setting = opening.setting().expect("a setting");
            assert!(setting.starts_with("SET LOCAL "), "{setting}");
            assert_eq!(opening.begin(), format!("BEGIN; {setting}"));
        }
    }

    #[tokio::test]
    async fn a_returned_row_stands_and_a_missing_one_rolls_back() {
        let found = row_or_roll_back(async { Ok(7) }, async { Ok(()) }).await;
        assert!(matches!(found, Ok(7)));
        let missed = row_or_roll_back(async { Err::<i32, _>(DieselError::NotFound) }, async { Ok(()) }).await;
        assert!(matches!(missed, Err(DieselError::RollbackTransaction)), "{missed:?}");
        let follower_failed =
            row_or_roll_back(async { Ok(7) }, async { Err::<(), _>(DieselError::BrokenTransactionManager) }).await;
        assert!(matches!(follower_failed, Err(DieselError::BrokenTransactionManager)), "{follower_failed:?}");
    }

    #[tokio::test]
    async fn a_write_that_landed_waits_for_its_followers() {
        let answer = write_with_followers(async { Ok::<_, &str>(Some(1)) }, async { Ok(()) }).await;
        assert_eq!(answer, Ok(Some(1)));
        let answer = write_with_followers(async { Ok::<_, &str>(Some(1)) }, async { Err::<(), _>("outbox") }).await;
        assert_eq!(answer, Err("outbox"));
    }

    #[tokio::test]
    async fn a_missed_write_wins_over_its_followers_and_its_error_comes_first() {
        let answer =
            write_with_followers(async { Ok::<Option<i32>, _>(None) }, async { Err::<(), _>("history") }).await;
        assert_eq!(answer, Ok(None));
        let answer =
            write_with_followers(async { Err::<Option<i32>, _>("update") }, async { Err::<(), _>("history") }).await;
        assert_eq!(answer, Err("update"));
    }
}
