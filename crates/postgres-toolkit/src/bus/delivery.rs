//! One delivery of one event to one handler, with retries and back-off.

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures_util::FutureExt;
use shared_kernel::ports::EventHandler;
use shared_kernel::EventEnvelope;

use super::DeliveryObserver;

/// Exponential back-off: `initial × multiplier^(n−1)`, capped at `max`.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Total attempts, the first one included.
    pub attempts: u32,
    pub initial_delay: Duration,
    pub max_delay: Duration,
    pub multiplier: f64,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self { attempts: 5, initial_delay: Duration::from_secs(1), max_delay: Duration::from_secs(30), multiplier: 2.0 }
    }
}

impl RetryPolicy {
    /// Pause after the `failed_attempt`-th failure (1-based).
    pub fn delay_after(&self, failed_attempt: u32) -> Duration {
        let exponent = i32::try_from(failed_attempt.saturating_sub(1)).unwrap_or(i32::MAX);
        let factor = self.multiplier.max(1.0).powi(exponent);
        let seconds = self.initial_delay.as_secs_f64() * factor;
        if !seconds.is_finite() || seconds >= self.max_delay.as_secs_f64() {
            self.max_delay
        } else {
            Duration::from_secs_f64(seconds)
        }
    }
}

/// Runs `handler` on `event` until it succeeds or the attempts run out, in
/// which case the event becomes a dead letter. A panicking handler counts
/// as a failed attempt. Returns whether the handler succeeded.
///
/// Between attempts the delivery waits aside: with `workers` (the bus's worker slots), it gives a
/// slot back for as long as it waits and takes one again before its next attempt, so a handler that
/// fails or waits on a lock never holds up the other events (docs/bounded-work.md).
pub async fn deliver(
    handler: &Arc<dyn EventHandler>,
    event: &EventEnvelope,
    policy: &RetryPolicy,
    observer: &Arc<dyn DeliveryObserver>,
    workers: Option<&Arc<tokio::sync::Semaphore>>,
) -> bool {
    match first_attempt(handler, event, policy, observer).await {
        FirstAttempt::Done(succeeded) => succeeded,
        FirstAttempt::Failed => retry(handler, event, policy, observer, workers).await,
    }
}

/// How a delivery's first attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FirstAttempt {
    /// Handled (`true`), or failed with no attempt left and dead-lettered (`false`).
    Done(bool),
    /// Failed; [`retry`] makes the other attempts.
    Failed,
}

/// The first attempt alone, for a bus that retries aside (`redis_streams`).
pub async fn first_attempt(
    handler: &Arc<dyn EventHandler>,
    event: &EventEnvelope,
    policy: &RetryPolicy,
    observer: &Arc<dyn DeliveryObserver>,
) -> FirstAttempt {
    match attempt(handler, event, observer).await {
        Ok(()) => FirstAttempt::Done(true),
        Err(error) if policy.attempts <= 1 => {
            dead_letter(handler, event, observer, &error, 1).await;
            FirstAttempt::Done(false)
        }
        Err(error) => {
            warn_retrying(handler, event, policy, 1, &error);
            FirstAttempt::Failed
        }
    }
}

/// The attempts after a failed first one, each after its pause (see [`deliver`] for `workers`).
pub async fn retry(
    handler: &Arc<dyn EventHandler>,
    event: &EventEnvelope,
    policy: &RetryPolicy,
    observer: &Arc<dyn DeliveryObserver>,
    workers: Option<&Arc<tokio::sync::Semaphore>>,
) -> bool {
    let attempts = policy.attempts.max(1);
    for number in 2..=attempts {
        wait_aside(policy.delay_after(number - 1), workers).await;
        let error = match attempt(handler, event, observer).await {
            Ok(()) => return true,
            Err(error) => error,
        };
        if number == attempts {
            dead_letter(handler, event, observer, &error, attempts).await;
            return false;
        }
        warn_retrying(handler, event, policy, number, &error);
    }
    false
}

/// One call of the handler; a panic is a failure.
async fn attempt(
    handler: &Arc<dyn EventHandler>,
    event: &EventEnvelope,
    observer: &Arc<dyn DeliveryObserver>,
) -> Result<(), String> {
    match AssertUnwindSafe(handler.handle(event)).catch_unwind().await {
        Ok(Ok(())) => {
            if handler.records_events() {
                observer.delivered();
            }
            Ok(())
        }
        Ok(Err(error)) => Err(error.to_string()),
        Err(_) => Err("handler panicked".to_owned()),
    }
}

async fn dead_letter(
    handler: &Arc<dyn EventHandler>,
    event: &EventEnvelope,
    observer: &Arc<dyn DeliveryObserver>,
    error: &str,
    attempts: u32,
) {
    tracing::error!(event_id = %event.id, event = %event.name, handler = handler.name(), attempts, %error, "event dead-lettered");
    observer.dead_letter(event, handler.name(), error, attempts).await;
}

fn warn_retrying(
    handler: &Arc<dyn EventHandler>,
    event: &EventEnvelope,
    policy: &RetryPolicy,
    failed: u32,
    error: &str,
) {
    let pause = policy.delay_after(failed);
    tracing::warn!(event_id = %event.id, handler = handler.name(), attempt = failed, %error, retry_in_ms = pause.as_millis() as u64, "handler failed; retrying");
}

/// Waits `pause`, giving a worker slot back meanwhile when there are slots.
async fn wait_aside(pause: Duration, workers: Option<&Arc<tokio::sync::Semaphore>>) {
    let Some(workers) = workers else {
        tokio::time::sleep(pause).await;
        return;
    };
    workers.add_permits(1);
    tokio::time::sleep(pause).await;
    // Closed: the bus is stopping, and the attempt runs as an unfinished one would.
    if let Ok(slot) = workers.acquire().await {
        slot.forget();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use async_trait::async_trait;
    use shared_kernel::ports::HandlerError;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use uuid::Uuid;

    /// Counts the successes reported as `delivered`.
    #[derive(Default)]
    struct Delivered(AtomicUsize);

    #[async_trait]
    impl DeliveryObserver for Delivered {
        async fn dead_letter(&self, _event: &EventEnvelope, _handler: &str, _error: &str, _attempts: u32) {}
        async fn completed(&self, _event_id: Uuid) {}
        fn delivered(&self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Succeeds; says whether it records events.
    struct Succeeding(bool);

    #[async_trait]
    impl EventHandler for Succeeding {
        fn name(&self) -> &'static str {
            "test.succeeding"
        }
        fn handles(&self, _event_name: &str) -> bool {
            true
        }
        async fn handle(&self, _event: &EventEnvelope) -> Result<(), HandlerError> {
            Ok(())
        }
        fn records_events(&self) -> bool {
            self.0
        }
    }

    #[tokio::test]
    async fn only_a_handler_that_records_events_reports_its_success() {
        let counted = Arc::new(Delivered::default());
        let observer: Arc<dyn DeliveryObserver> = counted.clone();
        let event = EventEnvelope::new("test.event", Uuid::now_v7(), serde_json::json!({}));
        for records in [true, false] {
            let handler: Arc<dyn EventHandler> = Arc::new(Succeeding(records));
            assert!(deliver(&handler, &event, &RetryPolicy::default(), &observer, None).await);
        }
        assert_eq!(counted.0.load(Ordering::SeqCst), 1, "the relay is woken for the recorder only");
    }

    #[test]
    fn back_off_grows_and_caps() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay_after(1), Duration::from_secs(1));
        assert_eq!(policy.delay_after(2), Duration::from_secs(2));
        assert_eq!(policy.delay_after(5), Duration::from_secs(16));
        assert_eq!(policy.delay_after(6), Duration::from_secs(30));
        assert_eq!(policy.delay_after(1000), Duration::from_secs(30));
    }

    #[test]
    fn multiplier_below_one_never_shrinks() {
        let policy = RetryPolicy { multiplier: 0.5, ..RetryPolicy::default() };
        assert_eq!(policy.delay_after(3), Duration::from_secs(1));
    }
}
