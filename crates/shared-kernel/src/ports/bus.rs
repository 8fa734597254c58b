//! Event bus port: topic-based publish/subscribe between contexts.
//!
//! Delivery is at least once. Handlers must therefore be idempotent; the
//! infrastructure offers an inbox for that.

use async_trait::async_trait;
use std::sync::Arc;

use super::HealthCheck;
use crate::EventEnvelope;

#[derive(Debug, thiserror::Error)]
pub enum BusError {
    #[error("event bus unavailable: {0}")]
    Unavailable(String),
    #[error("event bus is shutting down")]
    Closed,
}

/// Why a handler failed; the bus retries any failure with back-off.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HandlerError(pub String);

impl HandlerError {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

#[async_trait]
pub trait EventHandler: Send + Sync {
    /// Stable name: keys the inbox, the dead letters and the consumer group.
    fn name(&self) -> &'static str;
    /// Whether this handler wants events with this name.
    fn handles(&self, event_name: &str) -> bool;
    async fn handle(&self, event: &EventEnvelope) -> Result<(), HandlerError>;
    /// Whether concurrent events with this name are done several to a transaction (the handler
    /// gathers the calls that overlap): a bus worker may then hand it a batch of them at once, as
    /// concurrent calls of `handle`, instead of taking a worker per event.
    fn done_together(&self, _event_name: &str) -> bool {
        false
    }
    /// Whether handling an event may record events of its own, which the outbox relay then
    /// delivers: it is woken after each success of such a handler. One that never records any says
    /// `false` and spares the relay a claim that would find nothing.
    fn records_events(&self) -> bool {
        true
    }
}

#[async_trait]
pub trait EventBus: Send + Sync {
    /// Registers a handler. Call before `start`.
    fn subscribe(&self, handler: Arc<dyn EventHandler>);
    /// Starts delivering to the subscribed handlers.
    async fn start(&self) -> Result<(), BusError>;
    /// Hands an event to every interested handler.
    async fn publish(&self, event: &EventEnvelope) -> Result<(), BusError>;
    /// Hands an event to one handler only (re-queueing a dead letter).
    async fn redeliver(&self, event: &EventEnvelope, handler: &str) -> Result<(), BusError>;
    /// `true` when a published event survives a crash of this process
    /// (Redis Streams); `false` for the in-process bus.
    fn is_durable(&self) -> bool;
    /// Events accepted but not yet handled by this instance.
    fn queue_depth(&self) -> i64;
    async fn health(&self) -> HealthCheck;
    /// Stops taking events and waits for in-flight deliveries to finish.
    async fn shutdown(&self);
}
