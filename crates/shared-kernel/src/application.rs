//! What every context's application layer (its use cases) shares: the clock a use case reads the
//! time from, and the one policy for a compare-and-set write that lost a race.
//!
//! A use case loads an aggregate through a port, lets the aggregate decide, and saves the result
//! conditionally on what it loaded (`UPDATE … WHERE version = …`, docs/conventions.md). When the
//! save matches nothing ([`StorageError::Stale`]) another writer changed the record first: the use
//! case loads again and decides again, which then succeeds or fails with the exact domain answer.
//! [`until_settled`] is that loop, written once for every context.
//!
//! ```
//! use shared_kernel::application::{block_on, until_settled, Attempt};
//! use shared_kernel::StorageError;
//!
//! let mut tries = 0;
//! let saved: Result<u32, StorageError> = block_on(until_settled(|| {
//!     tries += 1;
//!     let n = tries;
//!     async move { Ok(if n < 3 { Attempt::Stale } else { Attempt::Done(n) }) }
//! }));
//! assert_eq!(saved, Ok(3)); // two lost races, then a save that held
//! ```

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use time::OffsetDateTime;

use crate::StorageError;

/// Where a use case reads the current time from, so that a test can fix it.
pub trait Clock: Send + Sync {
    /// The current time, at the storage's precision (microseconds), so that what a write answers
    /// equals what a later read returns.
    fn now(&self) -> OffsetDateTime;
}

/// The system's clock, truncated to microseconds.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> OffsetDateTime {
        let t = OffsetDateTime::now_utc();
        t.replace_nanosecond(t.nanosecond() / 1_000 * 1_000).unwrap_or(t)
    }
}

/// A clock that always answers the same time: for tests and examples.
#[derive(Debug, Clone, Copy)]
pub struct FixedClock(pub OffsetDateTime);

impl Clock for FixedClock {
    fn now(&self) -> OffsetDateTime {
        self.0
    }
}

/// How often a write is decided again. Every lost race means another writer succeeded, so this
/// bounds how many writers a use case waits behind, not the time; beyond it the answer is
/// [`StorageError::Stale`] (409 `CONFLICT` over HTTP).
pub const MAX_ATTEMPTS: usize = 200;

/// One attempt's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Attempt<T> {
    /// The write held (or the decision needed none): this is the answer.
    Done(T),
    /// The conditional write matched nothing: load and decide again.
    Stale,
}

impl<T> Attempt<T> {
    /// A conditional save's outcome as an attempt: `Stale` is decided again, any other storage
    /// failure is the use case's error.
    pub fn of<E: From<StorageError>>(saved: Result<T, StorageError>) -> Result<Self, E> {
        match saved {
            Ok(value) => Ok(Self::Done(value)),
            Err(StorageError::Stale) => Ok(Self::Stale),
            Err(other) => Err(other.into()),
        }
    }
}

/// Runs `attempt` until it is not stale, at most [`MAX_ATTEMPTS`] times, letting other tasks run
/// between attempts; then fails with [`StorageError::Stale`].
pub async fn until_settled<T, E, F, Fut>(mut attempt: F) -> Result<T, E>
where
    E: From<StorageError>,
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Attempt<T>, E>>,
{
    for _ in 0..MAX_ATTEMPTS {
        match attempt().await? {
            Attempt::Done(value) => return Ok(value),
            Attempt::Stale => YieldNow(false).await,
        }
    }
    Err(StorageError::Stale.into())
}

/// [`until_settled`] for an edit of a record the use case has already read (to check what it
/// references before anything else): the first attempt decides on `read`, every later one on
/// `reload()`, so a write that lost no race costs no second read.
pub async fn settle_edit<R, T, E, Reload, Reloaded, Decide, Decided>(
    read: R,
    reload: Reload,
    attempt: Decide,
) -> Result<T, E>
where
    E: From<StorageError>,
    Reload: Fn() -> Reloaded,
    Reloaded: Future<Output = Result<R, E>>,
    Decide: Fn(R) -> Decided,
    Decided: Future<Output = Result<Attempt<T>, E>>,
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

/// Gives the executor one turn, so the writer that won the race can finish (any executor: no
/// runtime is named here).
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.0 {
            return Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Runs a future to completion on the current thread, for examples, doctests and unit tests of use
/// cases whose ports never wait on I/O (the in-memory adapters). Not for a server.
pub fn block_on<F: Future>(future: F) -> F::Output {
    use std::sync::Arc;
    use std::task::{Wake, Waker};

    struct ThreadWaker(std::thread::Thread);
    impl Wake for ThreadWaker {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }

    let waker = Waker::from(Arc::new(ThreadWaker(std::thread::current())));
    let mut cx = Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        match future.as_mut().poll(&mut cx) {
            Poll::Ready(output) => return output,
            Poll::Pending => std::thread::park(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn stale_attempts_are_decided_again_until_one_holds() {
        let calls = Cell::new(0);
        let outcome: Result<i32, StorageError> = block_on(until_settled(|| {
            calls.set(calls.get() + 1);
            let n = calls.get();
            async move { Ok(if n < 3 { Attempt::Stale } else { Attempt::Done(n) }) }
        }));
        assert_eq!(outcome, Ok(3));
    }

    #[test]
    fn a_race_lost_every_time_ends_stale() {
        let calls = Cell::new(0);
        let outcome: Result<(), StorageError> = block_on(until_settled(|| {
            calls.set(calls.get() + 1);
            async { Ok(Attempt::Stale) }
        }));
        assert_eq!(outcome, Err(StorageError::Stale));
        assert_eq!(calls.get(), MAX_ATTEMPTS);
    }

    #[test]
    fn a_save_outcome_is_done_stale_or_the_error() {
        assert_eq!(Attempt::of::<StorageError>(Ok(1)), Ok(Attempt::Done(1)));
        assert_eq!(Attempt::<i32>::of::<StorageError>(Err(StorageError::Stale)), Ok(Attempt::Stale));
        assert_eq!(Attempt::<i32>::of::<StorageError>(Err(StorageError::NotFound)), Err(StorageError::NotFound));
    }

    #[test]
    fn an_edit_decides_on_its_first_read_then_on_reloads() {
        let (reloads, seen) = (Cell::new(0), std::cell::RefCell::new(Vec::new()));
        let outcome: Result<&str, StorageError> = block_on(settle_edit(
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
        ));
        assert_eq!(outcome, Ok("reloaded"));
        assert_eq!(*seen.borrow(), vec!["read", "reloaded", "reloaded"]);
        assert_eq!(reloads.get(), 2);
    }

    #[test]
    fn the_system_clock_keeps_microseconds() {
        assert_eq!(SystemClock.now().nanosecond() % 1_000, 0);
    }
}
