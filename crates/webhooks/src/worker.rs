//! The delivery worker: claims due deliveries, signs and sends each on the sender thread, and
//! records what came of it. Several instances run one each and share the work through claims.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use time::OffsetDateTime;
use tokio::sync::{watch, Notify, Semaphore};
use tokio::task::JoinHandle;
use url::Url;
use uuid::Uuid;

use super::model::webhook_id;
use super::queue::{next_step, Claimed, DeliveryQueue};
use super::secrets::SecretKeeper;
use super::sender::{AttemptOutcome, HttpSender, Outbound};

/// Attempts one instance has in flight at most; a dead receiver holds one slot for 15 s.
pub const CONCURRENT_ATTEMPTS: usize = 32;
/// The longest the worker sleeps without looking for due deliveries (other instances' new ones).
const IDLE_POLL: Duration = Duration::from_secs(2);
/// The shortest pause after a claim that did not fill the free slots.
const MIN_PAUSE: Duration = Duration::from_millis(20);
/// The wait after the database could not be reached.
const ERROR_PAUSE: Duration = Duration::from_secs(1);

/// How deliveries are retried and when failing endpoints are disabled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryPolicy {
    /// Delays between attempts (`WEBHOOK_RETRY_SCHEDULE`).
    pub retry_schedule: Vec<Duration>,
    /// How long an endpoint may only fail before it is disabled (`WEBHOOK_DISABLE_AFTER`).
    pub disable_after: Duration,
}

/// Wakes the worker when a delivery was made on this instance.
#[derive(Clone, Default)]
pub struct WorkerSignal(Arc<Notify>);

impl WorkerSignal {
    /// Wakes the worker now and, inside a request transaction, again after its commit (before
    /// it, the worker cannot see the delivery yet).
    pub fn notify(&self) {
        self.0.notify_one();
        let again = self.0.clone();
        postgres_toolkit::request_tx::after_commit(Box::pin(async move { again.notify_one() }));
    }
}

pub struct DeliveryWorker {
    pub queue: DeliveryQueue,
    pub sender: HttpSender,
    pub secrets: SecretKeeper,
    pub policy: DeliveryPolicy,
    pub signal: WorkerSignal,
}

/// The running worker; `stop` gives back the claims of attempts still in flight.
pub struct RunningWorker {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl RunningWorker {
    pub async fn stop(self) {
        let _ = self.stop.send(true);
        if let Err(error) = self.task.await {
            tracing::warn!(%error, "webhook worker ended abnormally");
        }
    }
}

impl DeliveryWorker {
    pub fn spawn(self) -> RunningWorker {
        let (stop, stopped) = watch::channel(false);
        let task = tokio::spawn(self.run(stopped));
        RunningWorker { stop, task }
    }

    async fn run(self, mut stopped: watch::Receiver<bool>) {
        let this = Arc::new(self);
        let slots = Arc::new(Semaphore::new(CONCURRENT_ATTEMPTS));
        let in_flight: Arc<Mutex<HashSet<Uuid>>> = Arc::default();
        let mut attempts = tokio::task::JoinSet::new();
        loop {
            // Stopped, or the handle dropped without a word.
            if *stopped.borrow() || stopped.has_changed().is_err() {
                break;
            }
            // Wait for a free slot, then take every free slot there is.
            let first = tokio::select! {
                permit = slots.clone().acquire_owned() => permit,
                _ = stopped.changed() => continue,
            };
            let Ok(first) = first else { break };
            let mut permits = vec![first];
            while let Ok(permit) = slots.clone().try_acquire_owned() {
                permits.push(permit);
            }
            let claimed = match this.queue.claim(permits.len()).await {
                Ok(claimed) => claimed,
                Err(error) => {
                    tracing::warn!(%error, "could not claim webhook deliveries");
                    this.pause(ERROR_PAUSE, &mut stopped).await;
                    continue;
                }
            };
            let full = claimed.len() == permits.len();
            for (delivery, permit) in claimed.into_iter().zip(permits.drain(..)) {
                let worker = this.clone();
                let in_flight = in_flight.clone();
                lock(&in_flight).insert(delivery.claim);
                attempts.spawn(async move {
                    worker.attempt(&delivery).await;
                    lock(&in_flight).remove(&delivery.claim);
                    drop(permit);
                });
            }
            drop(permits);
            while attempts.try_join_next().is_some() {}
            if !full {
                // Measured on the database's clock, which set the due times; never a busy loop.
                let wait = match this.queue.next_due_in().await {
                    Ok(Some(due_in)) => due_in.clamp(MIN_PAUSE, IDLE_POLL),
                    Ok(None) => IDLE_POLL,
                    Err(_) => ERROR_PAUSE,
                };
                this.pause(wait, &mut stopped).await;
            }
        }
        // Stopping: attempts in flight are abandoned and their deliveries handed back.
        attempts.abort_all();
        let held: Vec<Uuid> = lock(&in_flight).drain().collect();
        if !held.is_empty() {
            if let Err(error) = this.queue.release(&held).await {
                tracing::warn!(%error, "could not hand back webhook deliveries; they are retried after the lease");
            }
        }
    }

    /// Sleeps for `wait`, or less when a delivery is made here or the worker is stopped.
    async fn pause(&self, wait: Duration, stopped: &mut watch::Receiver<bool>) {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = self.signal.0.notified() => {}
            _ = stopped.changed() => {}
        }
    }

    async fn attempt(&self, delivery: &Claimed) {
        let outcome = match Url::parse(&delivery.url) {
            Ok(url) => self.sender.send(self.sign(delivery, url)).await,
            Err(error) => AttemptOutcome::failed(
                OffsetDateTime::now_utc(),
                std::time::Instant::now(),
                format_args!("invalid URL: {error}"),
            ),
        };
        let next = next_step(outcome.succeeded(), delivery.attempts + 1, &self.policy.retry_schedule);
        match self.queue.record(delivery, &outcome, next, self.policy.disable_after).await {
            Ok(true) => {}
            Ok(false) => {
                tracing::info!(delivery = %delivery.delivery_id, "webhook claim lost; another attempt owns it")
            }
            Err(error) => {
                tracing::warn!(%error, delivery = %delivery.delivery_id, "could not record a webhook attempt");
            }
        }
        // The worker looks again: this delivery may be due again soon.
        self.signal.notify();
        if !outcome.succeeded() {
            tracing::info!(
                delivery = %delivery.delivery_id,
                status = ?outcome.status,
                error = outcome.error.as_deref().unwrap_or(""),
                "webhook attempt failed"
            );
        }
    }

    /// The request of one attempt: signed now, with the previous secret too while it still signs.
    fn sign(&self, delivery: &Claimed, url: Url) -> Outbound {
        let id = webhook_id(delivery.delivery_id);
        let timestamp = OffsetDateTime::now_utc().unix_timestamp();
        let body = delivery.payload.as_bytes();
        let mut signature = self.secrets.secret(delivery.endpoint_id, &delivery.secret_salt).sign(&id, timestamp, body);
        if let Some(previous) = &delivery.previous_secret_salt {
            signature.push(' ');
            signature.push_str(&self.secrets.secret(delivery.endpoint_id, previous).sign(&id, timestamp, body));
        }
        Outbound { url, webhook_id: id, timestamp, signature, body: delivery.payload.clone() }
    }
}

fn lock(set: &Mutex<HashSet<Uuid>>) -> std::sync::MutexGuard<'_, HashSet<Uuid>> {
    set.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
