//! Outbound webhooks (docs/webhooks.md): endpoints and their delivery log (`store`), deliveries
//! made from outbox events (`fan_out`), claimed and recorded (`queue`), sent from a thread of
//! their own (`sender`) by the `worker`, signed per the Standard Webhooks scheme (`signing`)
//! with secrets derived, never stored (`secrets`), to destinations the `address` policy allows,
//! carrying only what the endpoint's creator may read (`access`).
//!
//! An integration, not a context: it depends on `postgres-toolkit`, `shared-kernel` and
//! `event-contracts` only, and knows events by their names and payloads. Its own tables are the
//! `webhook_*` ones; the one rule that reads another context's tables is `access`, which evaluates
//! an endpoint creator's identity grants (`users`, `roles`, `api_keys`, …) in SQL.

pub mod access;
pub mod address;
pub mod fan_out;
pub mod filter;
pub mod model;
pub mod queue;
mod schema;
pub mod secrets;
pub mod sender;
pub mod signing;
pub mod store;
pub mod worker;

pub use address::AddressPolicy;
pub use fan_out::WebhookFanOut;
pub use filter::{EventFilter, InvalidFilter};
pub use model::{Creator, Delivery, DeliveryDetail, DeliveryStatus, Endpoint, EndpointInput, WebhookError};
pub use queue::DeliveryQueue;
pub use secrets::SecretKeeper;
pub use sender::HttpSender;
pub use signing::{InvalidSecret, SigningSecret};
pub use store::PgWebhookStore;
pub use worker::{DeliveryPolicy, DeliveryWorker, RunningWorker, WorkerSignal};
