//! In-process bus: a bounded queue, a dispatcher and a pool of workers.
//!
//! Not durable: an event queued here is lost if the process dies. The
//! outbox covers that: rows stay "incomplete" until every handler is done,
//! and start-up hands incomplete rows to the bus again (the inbox keeps the
//! replay harmless).

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
        let workers = self.workers.clone();
        let policy = self.policy.clone();
        let observer = self.observer.clone();
        let depth = self.depth.clone();
        let dispatcher = tokio::spawn(async move {
            while let Some(delivery) = receiver.recv().await {
                let chosen: Vec<Arc<dyn EventHandler>> = handlers
                    .iter()
                    .filter(|h| match &delivery.target {
                        Some(target) => h.name() == target,
                        None => h.handles(&delivery.event.name),
                    })
                    .cloned()
                    .collect();
                if chosen.is_empty() {
                    depth.fetch_sub(1, Ordering::Relaxed);
                    observer.completed(delivery.event.id).await;
                    continue;
                }
                let event = Arc::new(delivery.event);
                let remaining = Arc::new(AtomicUsize::new(chosen.len()));
                for handler in chosen {
                    let Ok(permit) = workers.clone().acquire_owned().await else {
                        return;
                    };
                    let (event, remaining, policy, observer, depth) =
                        (event.clone(), remaining.clone(), policy.clone(), observer.clone(), depth.clone());
                    tokio::spawn(async move {
                        deliver(&handler, &event, &policy, &observer).await;
                        if remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
                            depth.fetch_sub(1, Ordering::Relaxed);
                            observer.completed(event.id).await;
                        }
                        drop(permit);
                    });
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
