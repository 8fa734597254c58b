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
pub async fn deliver(
    handler: &Arc<dyn EventHandler>,
    event: &EventEnvelope,
    policy: &RetryPolicy,
    observer: &Arc<dyn DeliveryObserver>,
) -> bool {
    let attempts = policy.attempts.max(1);
    for attempt in 1..=attempts {
        let outcome = AssertUnwindSafe(handler.handle(event)).catch_unwind().await;
        let error = match outcome {
            Ok(Ok(())) => {
                if handler.records_events() {
                    observer.delivered();
                }
                return true;
            }
            Ok(Err(error)) => error.to_string(),
            Err(_) => "handler panicked".to_owned(),
        };
        if attempt == attempts {
            tracing::error!(event_id = %event.id, event = %event.name, handler = handler.name(), attempts, %error, "event dead-lettered");
            observer.dead_letter(event, handler.name(), &error, attempts).await;
            return false;
        }
        let pause = policy.delay_after(attempt);
        tracing::warn!(event_id = %event.id, handler = handler.name(), attempt, %error, retry_in_ms = pause.as_millis() as u64, "handler failed; retrying");
        tokio::time::sleep(pause).await;
    }
    false
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
            assert!(deliver(&handler, &event, &RetryPolicy::default(), &observer).await);
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
