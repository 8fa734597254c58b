//! Helpers shared by the test modules.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use shared_kernel::ports::{EventHandler, HandlerError};
use shared_kernel::EventEnvelope;

/// Waits until `condition` holds, polling; panics with `what` after `limit`.
pub async fn eventually<F: FnMut() -> bool>(limit: Duration, what: &str, mut condition: F) {
    let deadline = Instant::now() + limit;
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Records what it receives; fails the first `failures` attempts.
pub struct RecordingHandler {
    pub name: &'static str,
    pub topic: &'static str,
    pub failures: AtomicUsize,
    pub attempts: AtomicUsize,
    pub received: Mutex<Vec<(EventEnvelope, Instant)>>,
    pub delay: Duration,
}

impl RecordingHandler {
    pub fn new(name: &'static str, topic: &'static str) -> Arc<Self> {
        Self::failing(name, topic, 0)
    }

    pub fn failing(name: &'static str, topic: &'static str, failures: usize) -> Arc<Self> {
        Arc::new(Self {
            name,
            topic,
            failures: AtomicUsize::new(failures),
            attempts: AtomicUsize::new(0),
            received: Mutex::new(Vec::new()),
            delay: Duration::ZERO,
        })
    }

    pub fn slow(name: &'static str, topic: &'static str, delay: Duration) -> Arc<Self> {
        Arc::new(Self {
            name,
            topic,
            failures: AtomicUsize::new(0),
            attempts: AtomicUsize::new(0),
            received: Mutex::new(Vec::new()),
            delay,
        })
    }

    pub fn received_ids(&self) -> Vec<uuid::Uuid> {
        self.received.lock().map(|r| r.iter().map(|(e, _)| e.id).collect()).unwrap_or_default()
    }

    pub fn attempts(&self) -> usize {
        self.attempts.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl EventHandler for RecordingHandler {
    fn name(&self) -> &'static str {
        self.name
    }

    fn handles(&self, event_name: &str) -> bool {
        event_name == self.topic
    }

    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError> {
        self.attempts.fetch_add(1, Ordering::SeqCst);
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        let failing = self.failures.load(Ordering::SeqCst);
        if failing > 0 {
            self.failures.fetch_sub(1, Ordering::SeqCst);
            if let Ok(mut received) = self.received.lock() {
                // Keep the time of failed attempts too, to observe back-off.
                received.push((event.clone(), Instant::now()));
            }
            return Err(HandlerError::new("deliberate failure"));
        }
        if let Ok(mut received) = self.received.lock() {
            received.push((event.clone(), Instant::now()));
        }
        Ok(())
    }
}
