//! Event bus port: topic-based publish/subscribe between contexts.
//!
//! Delivery is at least once. Handlers must therefore be idempotent; the
//! infrastructure offers an inbox for that (docs/events.md, "Idempotent handlers").

use async_trait::async_trait;
use std::sync::Arc;

use super::HealthCheck;
use crate::EventEnvelope;

/// Why the bus did not take an event or could not start.
#[derive(Debug, thiserror::Error)]
pub enum BusError {
    /// The transport (Redis) cannot be reached; the text is for the log only.
    #[error("event bus unavailable: {0}")]
    Unavailable(String),
    /// The bus is shutting down and takes no more events.
    #[error("event bus is shutting down")]
    Closed,
}

/// Why a handler failed; the bus retries any failure with back-off and, after the last attempt,
/// keeps the event as a dead letter with this message.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HandlerError(pub String);

impl HandlerError {
    /// A failure with its explanation.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

/// A subscriber: reacts to the events it [`handles`](Self::handles). It may see an event more than
/// once (at-least-once delivery, retries), so handling must be idempotent.
#[async_trait]
pub trait EventHandler: Send + Sync {
    /// Stable name: keys the inbox, the dead letters and the consumer group.
    fn name(&self) -> &'static str;
    /// Whether this handler wants events with this name.
    fn handles(&self, event_name: &str) -> bool;
    /// Does the handler's work for one event; an `Err` (or a panic) makes the bus retry it.
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

/// Carries events from the outbox relay to the subscribed handlers, each interested handler
/// receiving each event at least once: in process by default, through Redis Streams across instances.
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
    /// Probes the transport, for the health endpoints.
    async fn health(&self) -> HealthCheck;
    /// Stops taking events and waits for in-flight deliveries to finish.
    async fn shutdown(&self);
}
