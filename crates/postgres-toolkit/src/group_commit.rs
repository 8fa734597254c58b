//! Group commit: requests that arrive while a transaction runs are done together in the next one.
//!
//! An event handler whose work is one short transaction per event pays a `BEGIN`, a `COMMIT` with its
//! WAL flush, and its own claims and locks for every event; under a burst that is most of what it
//! costs. A [`GroupCommit`] hands each request to one task, which takes every request waiting (up to
//! [`Batched::MAX_BATCH`], one per key) into one call of [`Batched::many`]; a batch of one goes
//! through [`Batched::one`], and a batch that fails is done again with `one` for each of its requests,
//! all at once, each answered as soon as its own ends (so one request's lock wait does not hold up
//! the others' answers), so a request's error stays its own and the bus retries and dead-letters per
//! event as before (unless [`Batched::shared_failure`] says doing it again could do it twice). The
//! price: while a batch waits (on a row lock, say), the requests queued behind it wait too.
//!
//! A steady set of clients, each sending its next request once answered, splits into two halves
//! that take turns: the half answered first is back while the other half's batch runs. Where
//! [`Batched::COMPANY_WAIT`] is set, a batch waits up to that long for as many requests as were
//! around the last one (the requests it took and those that queued while it ran), so they share one
//! transaction again (docs/adr/0012-shared-commits.md).

use std::collections::{HashSet, VecDeque};
use std::hash::Hash;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures_util::FutureExt;
use tokio::sync::{mpsc, oneshot};

/// Work that can be done one request at a time or many in one transaction, with the same outcome.
/// `one` must be safe to run after a `many` that may have committed (a commit whose answer was lost):
/// the event handlers' inbox makes it a no-op there.
#[async_trait]
pub trait Batched: Send + Sync + 'static {
    type Request: Send + Sync + 'static;
    type Outcome: Send + 'static;
    type Error: std::fmt::Display + Send + 'static;
    type Key: Hash + Eq;

    /// The most requests one batch takes: enough to share a commit among a burst, few enough that the
    /// batch's locks are held briefly.
    const MAX_BATCH: usize = 64;
    /// How long the first request to find the queue idle waits for company before its batch runs.
    /// Zero (the default): one turn of the event loop, no timer. Worth a few milliseconds where a
    /// batch's statement costs the same for one request as for many and nobody waits on the answer
    /// (the webhook fan-out).
    const GATHER: Duration = Duration::ZERO;
    /// How long a batch may wait for company: for as many requests as were around the last batch.
    /// Zero (the default): it does not wait. Worth it where the requests come from clients waiting
    /// on their answers, each of whom sends again soon after being answered; a client that left
    /// costs the next batch this wait once (tokio's timers count whole milliseconds).
    const COMPANY_WAIT: Duration = Duration::ZERO;
    /// The most requests the queue holds: past it, [`GroupCommit::submit`] refuses at once with
    /// [`Batched::busy`] instead of making the caller wait behind an ever longer queue.
    const CAPACITY: usize = 1024;

    /// Requests with equal keys are never in one batch (a later one sees what the earlier one did).
    fn key(request: &Self::Request) -> Self::Key;
    /// Every request in one transaction, in their order: one outcome per request, or an error for all.
    async fn many(&self, requests: &[&Self::Request]) -> Result<Vec<Self::Outcome>, Self::Error>;
    /// The request in a transaction of its own: a batch of one.
    async fn one(&self, request: &Self::Request) -> Result<Self::Outcome, Self::Error> {
        self.many(&[request]).await?.pop().ok_or_else(Self::lost)
    }
    /// The error a request gets when its batch panicked or the queue is gone.
    fn lost() -> Self::Error;
    /// The error a request gets when the queue is full. The default is [`Batched::lost`].
    fn busy() -> Self::Error {
        Self::lost()
    }
    /// The error every request of a batch that failed with `error` gets instead of being done again
    /// with `one` (when doing it again could do it twice: a commit whose answer was lost). `None`,
    /// the default: each request is done again alone.
    fn shared_failure(_error: &Self::Error) -> Option<Self::Error> {
        None
    }
}

type Queued<B> = (<B as Batched>::Request, oneshot::Sender<Result<<B as Batched>::Outcome, <B as Batched>::Error>>);

/// The queue in front of a [`Batched`]; clones share it.
pub struct GroupCommit<B: Batched> {
    sender: mpsc::Sender<Queued<B>>,
    work: Arc<B>,
}

impl<B: Batched> Clone for GroupCommit<B> {
    fn clone(&self) -> Self {
        Self { sender: self.sender.clone(), work: self.work.clone() }
    }
}

impl<B: Batched> GroupCommit<B> {
    /// Starts the task that runs the batches; call inside the runtime.
    pub fn start(work: B) -> Self {
        let work = Arc::new(work);
        let (sender, receiver) = mpsc::channel(B::CAPACITY);
        tokio::spawn(run(work.clone(), receiver));
        Self { sender, work }
    }

    /// Does `request` in the next batch. Dropped before its batch begins (its caller left), the
    /// request is taken out of the queue and never done.
    pub async fn submit(&self, request: B::Request) -> Result<B::Outcome, B::Error> {
        let (answer, answered) = oneshot::channel();
        match self.sender.try_send((request, answer)) {
            Ok(()) => {}
            Err(mpsc::error::TrySendError::Full(_)) => return Err(B::busy()),
            // The task is gone (the runtime is stopping, or it died): a transaction of its own.
            Err(mpsc::error::TrySendError::Closed((request, _))) => return self.work.one(&request).await,
        }
        answered.await.unwrap_or_else(|_| Err(B::lost()))
    }

    /// Whether the task is gone (its runtime stopped): submitted requests would be done alone.
    pub fn is_closed(&self) -> bool {
        self.sender.is_closed()
    }
}

async fn run<B: Batched>(work: Arc<B>, mut receiver: mpsc::Receiver<Queued<B>>) {
    let mut waiting = VecDeque::new();
    // How many requests were around the last batch: those it took and those that queued meanwhile.
    let mut company = 1;
    loop {
        if waiting.is_empty() {
            match receiver.recv().await {
                Some(queued) => waiting.push_back(queued),
                None => return,
            }
            if B::GATHER.is_zero() {
                // One turn of the event loop before a lone request's batch: requests whose bytes
                // have arrived run up to their own submit first and join it (tokio wakes a yielded
                // task after the ready ones and the I/O driver).
                tokio::task::yield_now().await;
            } else {
                tokio::time::sleep(B::GATHER).await;
            }
        }
        while let Ok(queued) = receiver.try_recv() {
            waiting.push_back(queued);
        }
        if waiting.len() < company && !B::COMPANY_WAIT.is_zero() {
            wait_for_company(&mut receiver, &mut waiting, company, B::COMPANY_WAIT).await;
        }
        // Requests whose callers have gone are not started.
        waiting.retain(|(_, answer)| !answer.is_closed());
        if waiting.is_empty() {
            continue;
        }
        let batch = take_batch::<B, _>(&mut waiting);
        let taken = batch.len();
        // A panic must not stop the queue: the batch's requests see their answer dropped (`lost`).
        if AssertUnwindSafe(run_batch(work.as_ref(), batch)).catch_unwind().await.is_err() {
            tracing::error!("a batch panicked; its requests failed");
        }
        company = (taken + waiting.len() + receiver.len()).clamp(1, B::MAX_BATCH);
    }
}

/// Takes requests into `waiting` until it holds `company` of them or `wait` has passed. Each arrival
/// wakes the queue's task; nothing polls.
async fn wait_for_company<T>(
    receiver: &mut mpsc::Receiver<T>,
    waiting: &mut VecDeque<T>,
    company: usize,
    wait: Duration,
) {
    let deadline = tokio::time::Instant::now() + wait;
    while waiting.len() < company {
        match tokio::time::timeout_at(deadline, receiver.recv()).await {
            Ok(Some(queued)) => waiting.push_back(queued),
            // Closed (the next `recv` ends the queue) or the wait is over: the batch goes as it is.
            Ok(None) | Err(_) => return,
        }
    }
}

/// Up to [`Batched::MAX_BATCH`] requests in arrival order, one per key; the rest wait, in order.
fn take_batch<B: Batched, T>(waiting: &mut VecDeque<(B::Request, T)>) -> Vec<(B::Request, T)> {
    let (mut batch, mut later, mut keys) = (Vec::new(), VecDeque::new(), HashSet::new());
    while let Some(queued) = waiting.pop_front() {
        if batch.len() < B::MAX_BATCH && keys.insert(B::key(&queued.0)) {
            batch.push(queued);
        } else {
            later.push_back(queued);
        }
    }
    *waiting = later;
    batch
}

async fn run_batch<B: Batched>(work: &B, batch: Vec<Queued<B>>) {
    if batch.len() > 1 {
        let requests: Vec<&B::Request> = batch.iter().map(|(request, _)| request).collect();
        match work.many(&requests).await {
            Ok(outcomes) if outcomes.len() == batch.len() => {
                for ((_, answer), outcome) in batch.into_iter().zip(outcomes) {
                    let _ = answer.send(Ok(outcome));
                }
                return;
            }
            Ok(_) => {
                // A bug in `many`, which may have committed: fail every request; the bus retries them.
                tracing::error!(requests = batch.len(), "a batch answered the wrong number of outcomes");
                for (_, answer) in batch {
                    let _ = answer.send(Err(B::lost()));
                }
                return;
            }
            Err(error) => {
                if B::shared_failure(&error).is_some() {
                    tracing::warn!(%error, requests = batch.len(), "a batch failed; every request fails with it");
                    for (_, answer) in batch {
                        let _ = answer.send(Err(B::shared_failure(&error).unwrap_or_else(B::lost)));
                    }
                    return;
                }
                tracing::warn!(%error, requests = batch.len(), "a batch failed; doing it request by request");
            }
        }
    }
    // Each answered as soon as its own transaction ends: one request's lock wait holds up only the
    // queue, not the answers of the others.
    futures_util::future::join_all(batch.into_iter().map(|(request, answer)| async move {
        let _ = answer.send(work.one(&request).await);
    }))
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    /// Doubles numbers; records how it was called. `many` fails when a batch holds `fail_with`, and
    /// panics when it holds 13.
    #[derive(Default)]
    struct Doubler {
        batches: Mutex<Vec<Vec<u32>>>,
        singles: Mutex<Vec<u32>>,
        fail_with: Option<u32>,
    }

    #[async_trait]
    impl Batched for Doubler {
        type Request = (u32, u32);
        type Outcome = u32;
        type Error = String;
        type Key = u32;

        fn key(request: &(u32, u32)) -> u32 {
            request.0
        }

        async fn one(&self, request: &(u32, u32)) -> Result<u32, String> {
            self.singles.lock().expect("lock").push(request.1);
            if request.1 == 7 {
                return Err("seven refused".to_owned());
            }
            Ok(request.1 * 2)
        }

        async fn many(&self, requests: &[&(u32, u32)]) -> Result<Vec<u32>, String> {
            let values: Vec<u32> = requests.iter().map(|r| r.1).collect();
            self.batches.lock().expect("lock").push(values.clone());
            if values.contains(&13) {
                panic!("thirteen");
            }
            if values.contains(&66) {
                return Err("connection lost".to_owned());
            }
            if self.fail_with.is_some_and(|f| values.contains(&f)) {
                return Err("batch refused".to_owned());
            }
            Ok(values.iter().map(|v| v * 2).collect())
        }

        fn lost() -> String {
            "lost".to_owned()
        }

        fn shared_failure(error: &String) -> Option<String> {
            (error == "connection lost").then(|| "outcome unknown".to_owned())
        }
    }

    async fn submit_all(queue: &GroupCommit<Doubler>, requests: Vec<(u32, u32)>) -> Vec<Result<u32, String>> {
        futures_util::future::join_all(requests.into_iter().map(|r| queue.submit(r))).await
    }

    #[tokio::test]
    async fn requests_arriving_together_share_a_batch_and_get_their_own_answers() {
        let queue = GroupCommit::start(Doubler::default());
        let answers = submit_all(&queue, (1..=5).map(|n| (n, n)).collect()).await;
        assert_eq!(answers, (1..=5).map(|n| Ok(n * 2)).collect::<Vec<_>>());
        let batches = queue.work.batches.lock().expect("lock").clone();
        let singles = queue.work.singles.lock().expect("lock").clone();
        assert_eq!(batches.iter().map(Vec::len).sum::<usize>() + singles.len(), 5, "each request done once");
        assert!(batches.iter().any(|b| b.len() > 1), "some went together: {batches:?} {singles:?}");
    }

    #[tokio::test]
    async fn a_request_woken_as_a_lone_one_is_queued_joins_its_batch() {
        let queue = GroupCommit::start(Doubler::default());
        let (go, gone) = tokio::sync::oneshot::channel::<()>();
        let second = tokio::spawn({
            let queue = queue.clone();
            async move {
                gone.await.expect("go");
                queue.submit((2, 2)).await
            }
        });
        // Let the second request's task start: it waits for `go`.
        tokio::task::yield_now().await;
        // The queue's task is woken by the first request, then the second's task by `go`: the second
        // runs up to its submit before the first's batch begins.
        let (first, _) = tokio::join!(queue.submit((1, 1)), async { go.send(()) });
        assert_eq!((first, second.await.expect("task")), (Ok(2), Ok(4)));
        assert_eq!(*queue.work.batches.lock().expect("lock"), vec![vec![1, 2]], "one batch");
        assert!(queue.work.singles.lock().expect("lock").is_empty());
    }

    #[tokio::test]
    async fn requests_with_one_key_are_never_in_one_batch() {
        let queue = GroupCommit::start(Doubler::default());
        let answers = submit_all(&queue, vec![(1, 10), (1, 11), (2, 20), (1, 12)]).await;
        assert_eq!(answers, vec![Ok(20), Ok(22), Ok(40), Ok(24)]);
        let batches = queue.work.batches.lock().expect("lock").clone();
        assert_eq!(batches.first(), Some(&vec![10, 20]), "the first batch takes key 1 once");
        for batch in &batches {
            let ones = batch.iter().filter(|v| (10..=12).contains(*v)).count();
            assert!(ones <= 1, "{batch:?}");
        }
    }

    #[tokio::test]
    async fn a_failed_batch_is_done_request_by_request_and_errors_stay_their_own() {
        let queue = GroupCommit::start(Doubler { fail_with: Some(7), ..Doubler::default() });
        let answers = submit_all(&queue, vec![(1, 1), (7, 7), (3, 3)]).await;
        assert_eq!(answers, vec![Ok(2), Err("seven refused".to_owned()), Ok(6)]);
        assert_eq!(*queue.work.batches.lock().expect("lock"), vec![vec![1, 7, 3]], "tried together first");
        assert_eq!(*queue.work.singles.lock().expect("lock"), vec![1, 7, 3], "then one by one");
    }

    #[tokio::test]
    async fn a_panicking_batch_fails_its_requests_and_the_queue_goes_on() {
        let queue = GroupCommit::start(Doubler::default());
        let answers = submit_all(&queue, vec![(13, 13), (14, 14)]).await;
        assert_eq!(answers, vec![Err("lost".to_owned()), Err("lost".to_owned())]);
        assert_eq!(queue.submit((5, 5)).await, Ok(10), "still serving");
    }

    #[tokio::test]
    async fn a_batch_failure_every_request_shares_is_not_done_again() {
        let queue = GroupCommit::start(Doubler::default());
        let answers = submit_all(&queue, vec![(1, 1), (66, 66)]).await;
        assert_eq!(answers, vec![Err("outcome unknown".to_owned()), Err("outcome unknown".to_owned())]);
        assert!(queue.work.singles.lock().expect("lock").is_empty(), "nothing done twice");
    }

    /// A [`Doubler`] whose batches wait up to `MILLIS` for company.
    #[derive(Default)]
    struct Companied<const MILLIS: u64>(Doubler);

    #[async_trait]
    impl<const MILLIS: u64> Batched for Companied<MILLIS> {
        type Request = (u32, u32);
        type Outcome = u32;
        type Error = String;
        type Key = u32;
        const COMPANY_WAIT: Duration = Duration::from_millis(MILLIS);

        fn key(request: &(u32, u32)) -> u32 {
            request.0
        }

        async fn many(&self, requests: &[&(u32, u32)]) -> Result<Vec<u32>, String> {
            self.0.many(requests).await
        }

        fn lost() -> String {
            Doubler::lost()
        }
    }

    /// Four clients answered together; two come back at once and two 20 ms later.
    async fn four_then_two_and_two<B: Batched<Request = (u32, u32)>>(queue: &GroupCommit<B>) {
        let submit_all =
            |requests: Vec<(u32, u32)>| futures_util::future::join_all(requests.into_iter().map(|r| queue.submit(r)));
        submit_all((1..=4).map(|n| (n, n)).collect()).await;
        let later = async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            submit_all(vec![(7, 7), (8, 8)]).await
        };
        tokio::join!(submit_all(vec![(5, 5), (6, 6)]), later);
    }

    #[tokio::test]
    async fn without_a_company_wait_clients_that_come_back_apart_take_two_batches() {
        let queue = GroupCommit::start(Doubler::default());
        four_then_two_and_two(&queue).await;
        let batches = queue.work.batches.lock().expect("lock").clone();
        assert_eq!(batches, vec![vec![1, 2, 3, 4], vec![5, 6], vec![7, 8]]);
    }

    #[tokio::test]
    async fn a_batch_waits_for_as_many_requests_as_came_with_the_last_one() {
        let queue = GroupCommit::start(Companied::<10_000>::default());
        four_then_two_and_two(&queue).await;
        let batches = queue.work.0.batches.lock().expect("lock").clone();
        assert_eq!(batches, vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8]], "the four share a commit again");
    }

    #[tokio::test]
    async fn a_client_that_left_costs_one_wait_and_is_then_forgotten() {
        let queue = GroupCommit::start(Companied::<50>::default());
        futures_util::future::join_all((1..=4).map(|n| queue.submit((n, n)))).await;
        // Three clients left: the lone request waits out the company wait, then goes alone.
        assert_eq!(queue.submit((5, 5)).await, Ok(10));
        // Company is one now: a request goes at once, and one 20 ms later does not join it.
        let later = async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            queue.submit((7, 7)).await
        };
        assert_eq!(tokio::join!(queue.submit((6, 6)), later), (Ok(12), Ok(14)));
        let batches = queue.work.0.batches.lock().expect("lock").clone();
        assert_eq!(batches, vec![vec![1, 2, 3, 4], vec![5], vec![6], vec![7]]);
    }

    #[test]
    fn a_queue_whose_runtime_stopped_is_closed_and_does_requests_alone() {
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
        let queue = runtime.block_on(async { GroupCommit::start(Doubler::default()) });
        assert!(!queue.is_closed());
        drop(runtime);
        assert!(queue.is_closed());
        let again = tokio::runtime::Builder::new_current_thread().build().expect("runtime");
        assert_eq!(again.block_on(queue.submit((4, 4))), Ok(8));
        assert_eq!(*queue.work.singles.lock().expect("lock"), vec![4], "done alone");
    }

    /// A [`Doubler`] whose batches wait for a gate, with room for four requests.
    #[derive(Default)]
    struct Gated {
        doubler: Doubler,
        gate: tokio::sync::Notify,
    }

    #[async_trait]
    impl Batched for Gated {
        type Request = (u32, u32);
        type Outcome = u32;
        type Error = String;
        type Key = u32;
        const CAPACITY: usize = 4;

        fn key(request: &(u32, u32)) -> u32 {
            request.0
        }

        async fn many(&self, requests: &[&(u32, u32)]) -> Result<Vec<u32>, String> {
            self.gate.notified().await;
            self.doubler.many(requests).await
        }

        fn lost() -> String {
            Doubler::lost()
        }

        fn busy() -> String {
            "busy".to_owned()
        }
    }

    #[tokio::test]
    async fn a_full_queue_refuses_at_once_and_requests_whose_callers_left_are_never_done() {
        let queue = GroupCommit::start(Gated::default());
        // The first request's batch waits at the gate; four more fill the queue.
        let first = tokio::spawn({
            let queue = queue.clone();
            async move { queue.submit((1, 1)).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        let mut waiting = Vec::new();
        for n in 2..=5 {
            let queue = queue.clone();
            waiting.push(tokio::spawn(async move { queue.submit((n, n)).await }));
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert_eq!(queue.submit((6, 6)).await, Err("busy".to_owned()), "a full queue answers at once");
        // Two callers leave while queued.
        waiting.remove(0).abort();
        waiting.remove(0).abort();
        tokio::time::sleep(Duration::from_millis(20)).await;
        queue.work.gate.notify_one();
        assert_eq!(first.await.expect("task"), Ok(2));
        queue.work.gate.notify_one();
        for task in waiting {
            assert!(task.await.expect("task").is_ok());
        }
        let done: Vec<u32> = queue.work.doubler.batches.lock().expect("lock").iter().flatten().copied().collect();
        assert_eq!(done, vec![1, 4, 5], "the two that left were never done");
    }

    #[test]
    fn a_batch_takes_at_most_max_batch_in_arrival_order() {
        let mut waiting: VecDeque<((u32, u32), ())> = (0..100).map(|n| ((n, n), ())).collect();
        waiting.push_front(((0, 999), ()));
        let batch = take_batch::<Doubler, ()>(&mut waiting);
        assert_eq!(batch.len(), Doubler::MAX_BATCH);
        assert_eq!(batch[0].0, (0, 999));
        assert_eq!(batch[1].0, (1, 1), "the second request for key 0 waits");
        assert_eq!(waiting.front().map(|q| q.0), Some((0, 0)));
        assert_eq!(waiting.len(), 101 - Doubler::MAX_BATCH);
    }
}
