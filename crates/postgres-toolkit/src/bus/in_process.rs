//! In-process bus: a bounded queue, a dispatcher and a pool of workers.
//!
//! Not durable: an event queued here is lost if the process dies. The
//! outbox covers that: an event stays in `outbox_in_flight` until every
//! handler is done, and start-up hands those events to the bus again (the
//! inbox keeps the replay harmless).

use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use async_trait::async_trait;
use shared_kernel::ports::{BusError, EventBus, EventHandler, HealthCheck};
use shared_kernel::EventEnvelope;
use tokio::sync::{mpsc, Semaphore};
use tokio::task::JoinHandle;

use super::delivery::deliver;
use super::{DeliveryObserver, RetryPolicy};
use crate::events::relay::IN_MEMORY_HIGH_WATER;
use crate::events::DirectQueue;

struct Delivery {
    event: EventEnvelope,
    /// Only this handler (a re-queued dead letter); `None` means all.
    target: Option<String>,
}

pub struct InProcessBus {
    handlers: RwLock<Vec<Arc<dyn EventHandler>>>,
    sender: Mutex<Option<mpsc::Sender<Delivery>>>,
    receiver: Mutex<Option<mpsc::Receiver<Delivery>>>,
    dispatcher: Mutex<Option<JoinHandle<()>>>,
    workers: Arc<Semaphore>,
    worker_count: usize,
    policy: RetryPolicy,
    observer: Arc<dyn DeliveryObserver>,
    depth: Arc<AtomicI64>,
}

impl InProcessBus {
    pub fn new(
        worker_count: usize,
        buffer_size: usize,
        policy: RetryPolicy,
        observer: Arc<dyn DeliveryObserver>,
    ) -> Self {
        let worker_count = worker_count.max(1);
        let (sender, receiver) = mpsc::channel(buffer_size.max(1));
        Self {
            handlers: RwLock::new(Vec::new()),
            sender: Mutex::new(Some(sender)),
            receiver: Mutex::new(Some(receiver)),
            dispatcher: Mutex::new(None),
            workers: Arc::new(Semaphore::new(worker_count)),
            worker_count,
            policy,
            observer,
            depth: Arc::new(AtomicI64::new(0)),
        }
    }

    /// The queue committed events can be handed to from memory (`events::handoff`). It holds the
    /// queue weakly: once the bus shuts down, offers fail and the events wait in the outbox.
    pub fn direct_queue(&self) -> Option<Arc<dyn DirectQueue>> {
        let sender = self.current_sender()?.downgrade();
        Some(Arc::new(BusQueue { sender, depth: self.depth.clone() }))
    }

    fn current_sender(&self) -> Option<mpsc::Sender<Delivery>> {
        self.sender.lock().ok().and_then(|guard| guard.clone())
    }

    async fn enqueue(&self, delivery: Delivery) -> Result<(), BusError> {
        let sender = self.current_sender().ok_or(BusError::Closed)?;
        self.depth.fetch_add(1, Ordering::Relaxed);
        if sender.send(delivery).await.is_err() {
            self.depth.fetch_sub(1, Ordering::Relaxed);
            return Err(BusError::Closed);
        }
        Ok(())
    }
}

struct BusQueue {
    sender: mpsc::WeakSender<Delivery>,
    depth: Arc<AtomicI64>,
}

impl DirectQueue for BusQueue {
    fn has_room(&self) -> bool {
        self.depth.load(Ordering::Relaxed) < IN_MEMORY_HIGH_WATER
    }

    fn offer(&self, event: EventEnvelope) -> Result<(), EventEnvelope> {
        let Some(sender) = self.sender.upgrade() else {
            return Err(event);
        };
        self.depth.fetch_add(1, Ordering::Relaxed);
        sender.try_send(Delivery { event, target: None }).map_err(|refused| {
            self.depth.fetch_sub(1, Ordering::Relaxed);
            refused.into_inner().event
        })
    }
}

/// How many queued deliveries the dispatcher takes at once: enough to fill a few batching workers.
const DISPATCH_ROUND: usize = 256;

/// The most events a worker hands at once to a handler that does them together
/// ([`EventHandler::done_together`]): its batches' size (`group_commit::Batched::MAX_BATCH`).
pub const EVENTS_PER_WORKER: usize = 64;

/// What the dispatcher hands deliveries out with.
struct Dispatch {
    handlers: Vec<Arc<dyn EventHandler>>,
    workers: Arc<Semaphore>,
    policy: RetryPolicy,
    observer: Arc<dyn DeliveryObserver>,
    depth: Arc<AtomicI64>,
}

/// One event on its way to the handlers that want it; `remaining` counts those still working on it.
#[derive(Clone)]
struct InFlight {
    event: Arc<EventEnvelope>,
    remaining: Arc<AtomicUsize>,
}

impl Dispatch {
    /// Hands `deliveries` to their handlers, a worker each, or a worker for up to
    /// [`EVENTS_PER_WORKER`] events that a handler does together: a worker is one call of a
    /// handler's work, and a batching handler's work is a batch (a worker per event would cap its
    /// batches at the pool's size, shared with every other handler). `false` once the pool is closed.
    async fn hand_out(&self, deliveries: Vec<Delivery>) -> bool {
        let mut per_handler: Vec<Vec<InFlight>> = vec![Vec::new(); self.handlers.len()];
        for delivery in deliveries {
            let chosen: Vec<usize> = (0..self.handlers.len())
                .filter(|&at| match &delivery.target {
                    Some(target) => self.handlers[at].name() == target,
                    None => self.handlers[at].handles(&delivery.event.name),
                })
                .collect();
            if chosen.is_empty() {
                self.depth.fetch_sub(1, Ordering::Relaxed);
                self.observer.completed(delivery.event.id).await;
                continue;
            }
            let in_flight =
                InFlight { event: Arc::new(delivery.event), remaining: Arc::new(AtomicUsize::new(chosen.len())) };
            for at in chosen {
                per_handler[at].push(in_flight.clone());
            }
        }
        for (handler, events) in self.handlers.iter().zip(per_handler) {
            let (together, alone): (Vec<InFlight>, Vec<InFlight>) =
                events.into_iter().partition(|e| handler.done_together(&e.event.name));
            let groups =
                together.chunks(EVENTS_PER_WORKER).map(<[InFlight]>::to_vec).chain(alone.into_iter().map(|e| vec![e]));
            for group in groups {
                let Ok(permit) = self.workers.clone().acquire_owned().await else {
                    return false;
                };
                let (handler, policy, observer, depth, workers) = (
                    handler.clone(),
                    self.policy.clone(),
                    self.observer.clone(),
                    self.depth.clone(),
                    self.workers.clone(),
                );
                tokio::spawn(async move {
                    futures_util::future::join_all(group.iter().map(|in_flight| async {
                        deliver(&handler, &in_flight.event, &policy, &observer, Some(&workers)).await;
                        if in_flight.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
                            depth.fetch_sub(1, Ordering::Relaxed);
                            observer.completed(in_flight.event.id).await;
                        }
                    }))
                    .await;
                    drop(permit);
                });
            }
        }
        true
    }
}

#[async_trait]
impl EventBus for InProcessBus {
    fn subscribe(&self, handler: Arc<dyn EventHandler>) {
        if let Ok(mut handlers) = self.handlers.write() {
            handlers.push(handler);
        }
    }

    async fn start(&self) -> Result<(), BusError> {
        let receiver = self.receiver.lock().ok().and_then(|mut r| r.take());
        let Some(mut receiver) = receiver else {
            return Ok(()); // already started
        };
        let handlers: Vec<Arc<dyn EventHandler>> = self.handlers.read().map(|h| h.clone()).unwrap_or_default();
        let dispatch = Dispatch {
            handlers,
            workers: self.workers.clone(),
            policy: self.policy.clone(),
            observer: self.observer.clone(),
            depth: self.depth.clone(),
        };
        let dispatcher = tokio::spawn(async move {
            let mut round = Vec::with_capacity(DISPATCH_ROUND);
            while receiver.recv_many(&mut round, DISPATCH_ROUND).await > 0 {
                if !dispatch.hand_out(std::mem::take(&mut round)).await {
                    return;
                }
            }
        });
        if let Ok(mut slot) = self.dispatcher.lock() {
            *slot = Some(dispatcher);
        }
        Ok(())
    }

    async fn publish(&self, event: &EventEnvelope) -> Result<(), BusError> {
        self.enqueue(Delivery { event: event.clone(), target: None }).await
    }

    async fn redeliver(&self, event: &EventEnvelope, handler: &str) -> Result<(), BusError> {
        self.enqueue(Delivery { event: event.clone(), target: Some(handler.to_owned()) }).await
    }

    fn is_durable(&self) -> bool {
        false
    }

    fn queue_depth(&self) -> i64 {
        self.depth.load(Ordering::Relaxed)
    }

    async fn health(&self) -> HealthCheck {
        if self.current_sender().is_some() {
            HealthCheck::healthy(format!("in-process bus, {} queued", self.queue_depth()))
        } else {
            HealthCheck::unhealthy("in-process bus is shut down")
        }
    }

    async fn shutdown(&self) {
        // Closing the queue lets the dispatcher hand out what is queued, then stop.
        if let Ok(mut sender) = self.sender.lock() {
            sender.take();
        }
        let dispatcher = self.dispatcher.lock().ok().and_then(|mut d| d.take());
        if let Some(dispatcher) = dispatcher {
            let _ = dispatcher.await;
        }
        // Every worker permit back means every delivery finished.
        let all = u32::try_from(self.worker_count).unwrap_or(u32::MAX);
        if tokio::time::timeout(Duration::from_secs(30), self.workers.acquire_many(all)).await.is_err() {
            tracing::warn!("in-process bus: deliveries still running after 30 s; giving up");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared_kernel::ports::HandlerError;
    use tokio::sync::{Barrier, Notify};
    use uuid::Uuid;

    /// Counts completed events and wakes whoever waits for them.
    #[derive(Default)]
    struct Completions {
        count: AtomicUsize,
        changed: Notify,
    }

    #[async_trait]
    impl DeliveryObserver for Completions {
        async fn dead_letter(&self, _event: &EventEnvelope, _handler: &str, _error: &str, _attempts: u32) {}
        async fn completed(&self, _event_id: Uuid) {
            self.count.fetch_add(1, Ordering::SeqCst);
            self.changed.notify_waiters();
        }
    }

    impl Completions {
        async fn wait_for(&self, count: usize) {
            loop {
                let changed = self.changed.notified();
                if self.count.load(Ordering::SeqCst) >= count {
                    return;
                }
                changed.await;
            }
        }
    }

    /// Passes `batch.*` events only when `together` of them are in `handle` at once (a barrier), and
    /// records how many calls overlapped at most.
    struct Overlapping {
        together: bool,
        barrier: Barrier,
        running: AtomicUsize,
        most: AtomicUsize,
    }

    impl Overlapping {
        fn new(together: bool, at_the_barrier: usize) -> Arc<Self> {
            Arc::new(Self {
                together,
                barrier: Barrier::new(at_the_barrier),
                running: AtomicUsize::new(0),
                most: AtomicUsize::new(0),
            })
        }
    }

    #[async_trait]
    impl EventHandler for Overlapping {
        fn name(&self) -> &'static str {
            "test.overlapping"
        }
        fn handles(&self, event_name: &str) -> bool {
            event_name.starts_with("batch.")
        }
        fn done_together(&self, event_name: &str) -> bool {
            self.together && event_name == "batch.together"
        }
        async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
            let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            if event.name == "batch.together" {
                self.barrier.wait().await;
            }
            // Calls that share a worker overlap here.
            tokio::time::sleep(Duration::from_millis(5)).await;
            self.running.fetch_sub(1, Ordering::SeqCst);
            Ok(())
        }
    }

    async fn run(handler: Arc<Overlapping>, names: &[&str]) -> Arc<Completions> {
        let completions = Arc::new(Completions::default());
        let observer: Arc<dyn DeliveryObserver> = completions.clone();
        let bus = InProcessBus::new(1, 100, RetryPolicy::default(), observer);
        bus.subscribe(handler);
        // Queued before the start, so the dispatcher finds them together.
        for name in names {
            bus.publish(&EventEnvelope::new(*name, Uuid::nil(), serde_json::json!({}))).await.expect("queued");
        }
        bus.start().await.expect("started");
        completions.wait_for(names.len()).await;
        bus.shutdown().await;
        completions
    }

    #[tokio::test]
    async fn one_worker_hands_a_batching_handler_many_events_at_once() {
        let handler = Overlapping::new(true, 5);
        // With a worker per event, the one worker would hold the first event at the barrier for ever.
        let completions = tokio::time::timeout(Duration::from_secs(30), run(handler.clone(), &["batch.together"; 5]))
            .await
            .expect("five events in one worker's batch");
        assert_eq!(completions.count.load(Ordering::SeqCst), 5);
        assert_eq!(handler.most.load(Ordering::SeqCst), 5);
    }

    #[tokio::test]
    async fn events_not_done_together_take_a_worker_each() {
        let handler = Overlapping::new(true, 1);
        run(handler.clone(), &["batch.alone"; 4]).await;
        assert_eq!(handler.most.load(Ordering::SeqCst), 1, "one worker: one call at a time");
        let handler = Overlapping::new(false, 1);
        run(handler.clone(), &["batch.together"; 4]).await;
        assert_eq!(handler.most.load(Ordering::SeqCst), 1, "a handler that does not batch: one at a time");
    }

    /// Fails `stuck.*` events every time; handles the others at once.
    struct FailsSome;

    #[async_trait]
    impl EventHandler for FailsSome {
        fn name(&self) -> &'static str {
            "test.fails_some"
        }
        fn handles(&self, _event_name: &str) -> bool {
            true
        }
        async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
            if event.name.starts_with("stuck.") {
                return Err(HandlerError("a row is held elsewhere".to_owned()));
            }
            Ok(())
        }
    }

    #[tokio::test]
    async fn a_failing_event_waits_aside_and_the_others_go_on() {
        let completions = Arc::new(Completions::default());
        let observer: Arc<dyn DeliveryObserver> = completions.clone();
        // One worker, and a retry an hour away: were the worker held through the wait, nothing else
        // would be handled.
        let policy = RetryPolicy {
            attempts: 3,
            initial_delay: Duration::from_secs(3600),
            max_delay: Duration::from_secs(3600),
            multiplier: 1.0,
        };
        let bus = InProcessBus::new(1, 100, policy, observer);
        bus.subscribe(Arc::new(FailsSome));
        bus.publish(&EventEnvelope::new("stuck.one", Uuid::nil(), serde_json::json!({}))).await.expect("queued");
        for _ in 0..3 {
            bus.publish(&EventEnvelope::new("fine.one", Uuid::nil(), serde_json::json!({}))).await.expect("queued");
        }
        bus.start().await.expect("started");
        tokio::time::timeout(Duration::from_secs(10), completions.wait_for(3))
            .await
            .expect("the three others were handled while the failing one waits to be retried");
        assert_eq!(completions.count.load(Ordering::SeqCst), 3, "the failing one is not done");
    }
}
