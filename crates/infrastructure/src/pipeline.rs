//! Statements sent at once on one connection (pipelined): one round trip for several.
//!
//! Futures of statements on a shared `&AsyncPgConnection` that are polled together are queued on
//! the connection in the order they are first polled and run by PostgreSQL in that order, inside
//! the caller's transaction. A write and the rows that follow from it (its history row, its outbox
//! event) then cost one round trip instead of one each; on this machine that took `POST /customers`
//! from about 1 300 to 1 600 writes/s (docs/performance.md).

use std::future::Future;

use futures_util::future::join;

/// A conditional write (a compare-and-set answering `None` when it missed) sent together with the
/// rows that follow from it. When the write missed, the followers ran for nothing, and when they
/// failed the write must not stand: in both cases the caller's transaction must roll back, which
/// the answer says by `None` and by an error. The write's own error comes first.
pub(crate) async fn write_with_followers<T, F, E>(
    write: impl Future<Output = Result<Option<T>, E>>,
    followers: impl Future<Output = Result<F, E>>,
) -> Result<Option<T>, E> {
    let (written, followed) = join(write, followers).await;
    match written? {
        None => Ok(None),
        Some(row) => followed.map(|_| Some(row)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
