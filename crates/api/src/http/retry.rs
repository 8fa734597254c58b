//! Compare-and-set writes that lost a race are re-decided, under one policy.
//!
//! A handler loads the record, lets the domain decide, and writes the result
//! conditionally on what it read (`UPDATE … WHERE version/state = …`). When the
//! write matches nothing (`Stale`), someone else changed the record first: the
//! handler reloads and decides again — which then succeeds, or fails with the
//! exact domain answer (`INVALID_STATUS_TRANSITION`, `INSUFFICIENT_STOCK`, …).

use std::future::Future;

use shared_kernel::StorageError;

use super::ApiError;

/// How often a write is re-decided. Every lost race means another writer
/// succeeded, so this bounds how many writers a request waits behind, not the
/// time; beyond it the answer is 409 `CONFLICT`.
pub const MAX_ATTEMPTS: usize = 200;

/// One attempt's outcome.
pub enum Attempt<T> {
    Done(T),
    /// The conditional write matched nothing: reload and decide again.
    Stale,
}

impl<T> Attempt<T> {
    /// A conditional write's outcome as an attempt: `Stale` is decided again, any other storage error
    /// is answered as `error` maps it.
    pub fn of(saved: Result<T, StorageError>, error: impl FnOnce(StorageError) -> ApiError) -> Result<Self, ApiError> {
        match saved {
            Ok(value) => Ok(Self::Done(value)),
            Err(StorageError::Stale) => Ok(Self::Stale),
            Err(other) => Err(error(other)),
        }
    }
}

/// Runs `attempt` until it is not stale, at most [`MAX_ATTEMPTS`] times,
/// letting other tasks run between attempts.
pub async fn until_settled<T, F, Fut>(mut attempt: F) -> Result<T, ApiError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Attempt<T>, ApiError>>,
{
    for _ in 0..MAX_ATTEMPTS {
        match attempt().await? {
            Attempt::Done(value) => return Ok(value),
            Attempt::Stale => tokio::task::yield_now().await,
        }
    }
    Err(ApiError::conflict("CONFLICT", "the record kept changing concurrently; try again"))
}

/// [`until_settled`] for an edit of a record the handler has already read (to check it exists, or
/// what it references, before anything else): the first attempt decides on `read`, every later one on
/// `reload()`, so a write that lost no race costs no second read.
pub async fn settle_edit<R, T, Reload, Reloaded, Decide, Decided>(
    read: R,
    reload: Reload,
    attempt: Decide,
) -> Result<T, ApiError>
where
    Reload: Fn() -> Reloaded,
    Reloaded: Future<Output = Result<R, ApiError>>,
    Decide: Fn(R) -> Decided,
    Decided: Future<Output = Result<Attempt<T>, ApiError>>,
{
    let (reload, attempt) = (&reload, &attempt);
    let mut first = Some(read);
    until_settled(|| {
        let fresh = first.take();
        async move {
            let current = match fresh {
                Some(read) => read,
                None => reload().await?,
            };
            attempt(current).await
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[tokio::test]
    async fn stale_attempts_are_retried_until_one_settles() {
        let calls = Cell::new(0);
        let outcome = until_settled(|| {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move { Ok(if n < 3 { Attempt::Stale } else { Attempt::Done(n) }) }
        })
        .await;
        assert_eq!(outcome.map_err(|e| e.code), Ok(3));
    }

    #[test]
    fn a_write_outcome_is_done_stale_or_the_mapped_error() {
        let gone = || ApiError::not_found("gone");
        assert!(matches!(Attempt::of(Ok::<_, StorageError>(1), |_| gone()), Ok(Attempt::Done(1))));
        assert!(matches!(Attempt::<i32>::of(Err(StorageError::Stale), |_| gone()), Ok(Attempt::Stale)));
        let missing = Attempt::<i32>::of(Err(StorageError::NotFound), |_| gone());
        assert_eq!(missing.err().map(|e| e.code), Some("NOT_FOUND"));
    }

    #[tokio::test]
    async fn an_edit_decides_on_its_first_read_then_on_reloads() {
        let (reloads, seen) = (Cell::new(0), std::cell::RefCell::new(Vec::new()));
        let outcome = settle_edit(
            "read",
            || async {
                reloads.set(reloads.get() + 1);
                Ok("reloaded")
            },
            |current| {
                seen.borrow_mut().push(current);
                let n = seen.borrow().len();
                async move { Ok(if n < 3 { Attempt::Stale } else { Attempt::Done(current) }) }
            },
        )
        .await;
        assert_eq!(outcome.map_err(|e| e.code), Ok("reloaded"));
        assert_eq!((reloads.get(), seen.into_inner()), (2, vec!["read", "reloaded", "reloaded"]));
    }

    #[tokio::test]
    async fn errors_stop_at_once_and_endless_contention_is_a_conflict() {
        let failed: Result<(), ApiError> = until_settled(|| async { Err(ApiError::not_found("gone")) }).await;
        assert_eq!(failed.map_err(|e| e.code), Err("NOT_FOUND"));
        let calls = Cell::new(0);
        let busy: Result<(), ApiError> = until_settled(|| {
            calls.set(calls.get() + 1);
            async { Ok(Attempt::Stale) }
        })
        .await;
        assert_eq!((busy.map_err(|e| e.code), calls.get()), (Err("CONFLICT"), MAX_ATTEMPTS));
    }
}
