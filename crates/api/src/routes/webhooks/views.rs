//! How endpoints and deliveries look on the wire.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;
use webhooks::model::{Attempt, Delivery, DeliveryDetail, Endpoint};

use crate::http::conditional::{EntityTag, Versioned};

#[derive(Debug, Serialize, ToSchema)]
pub struct EndpointView {
    pub id: Uuid,
    pub url: String,
    pub description: Option<String>,
    pub events: Vec<String>,
    pub enabled: bool,
    /// `manual` (its owner disabled it) or `failing` (it only failed for `WEBHOOK_DISABLE_AFTER`).
    pub disabled_reason: Option<String>,
    /// The first failure since the last success.
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub failing_since: Option<OffsetDateTime>,
    /// The user who created it or last replaced it: it hears only the events they may read now.
    pub created_by: Option<Uuid>,
    /// The API key they did it with, if any: the key's permissions bound what it hears as well.
    pub created_by_api_key: Option<Uuid>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub updated_at: OffsetDateTime,
}

impl From<Endpoint> for EndpointView {
    fn from(e: Endpoint) -> Self {
        Self {
            id: e.id,
            url: e.url,
            description: e.description,
            events: e.events,
            enabled: e.enabled,
            disabled_reason: e.disabled_reason,
            failing_since: e.failing_since,
            created_by: e.created_by,
            created_by_api_key: e.created_by_key,
            created_at: e.created_at,
            updated_at: e.updated_at,
        }
    }
}

impl Versioned for Endpoint {
    fn entity_tag(&self) -> EntityTag {
        EntityTag::new(self.id, self.version)
    }
}

/// An endpoint with its secret, as creation and rotation answer it.
pub struct Revealed {
    pub endpoint: Endpoint,
    pub secret: String,
}

impl Versioned for Revealed {
    fn entity_tag(&self) -> EntityTag {
        self.endpoint.entity_tag()
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct EndpointWithSecretView {
    #[serde(flatten)]
    pub endpoint: EndpointView,
    /// `whsec_<base64>`: verify deliveries with it (Standard Webhooks). Shown only here.
    pub secret: String,
}

impl From<Revealed> for EndpointWithSecretView {
    fn from(r: Revealed) -> Self {
        Self { endpoint: r.endpoint.into(), secret: r.secret }
    }
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum DeliveryStatusView {
    Pending,
    Succeeded,
    Failed,
}

impl DeliveryStatusView {
    pub fn domain(self) -> webhooks::DeliveryStatus {
        use webhooks::DeliveryStatus as S;
        match self {
            Self::Pending => S::Pending,
            Self::Succeeded => S::Succeeded,
            Self::Failed => S::Failed,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryView {
    pub id: Uuid,
    /// The `webhook-id` header of every attempt.
    pub webhook_id: String,
    pub endpoint_id: Uuid,
    /// The outbox event delivered; `null` for a test ping.
    pub event_id: Option<Uuid>,
    pub event_type: String,
    #[schema(value_type = DeliveryStatusView)]
    pub status: String,
    pub attempt_count: i32,
    /// When a pending delivery is sent next (while an attempt is under way: when its claim ends).
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub next_attempt_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_attempt_at: Option<OffsetDateTime>,
    pub last_response_status: Option<i32>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub completed_at: Option<OffsetDateTime>,
}

impl From<Delivery> for DeliveryView {
    fn from(d: Delivery) -> Self {
        Self {
            webhook_id: d.webhook_id(),
            id: d.id,
            endpoint_id: d.endpoint_id,
            event_id: d.event_id,
            event_type: d.event_type,
            status: d.status,
            attempt_count: d.attempts,
            next_attempt_at: d.next_attempt_at,
            last_attempt_at: d.last_attempt_at,
            last_response_status: d.last_response_status,
            created_at: d.created_at,
            completed_at: d.completed_at,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct AttemptView {
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub attempted_at: OffsetDateTime,
    /// `null` when no answer came.
    pub response_status: Option<i32>,
    pub duration_ms: i32,
    /// The first 1 KiB of the answer's body.
    pub response_body: String,
    pub error: Option<String>,
}

impl From<Attempt> for AttemptView {
    fn from(a: Attempt) -> Self {
        Self {
            attempted_at: a.attempted_at,
            response_status: a.response_status,
            duration_ms: a.duration_ms,
            response_body: a.response_body,
            error: a.error,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
pub struct DeliveryDetailView {
    #[serde(flatten)]
    pub delivery: DeliveryView,
    /// The body sent on every attempt.
    #[schema(value_type = Object)]
    pub payload: serde_json::Value,
    /// Every attempt, oldest first.
    pub attempts: Vec<AttemptView>,
}

impl From<DeliveryDetail> for DeliveryDetailView {
    fn from(d: DeliveryDetail) -> Self {
        let payload = serde_json::from_str(&d.payload).unwrap_or(serde_json::Value::String(d.payload));
        Self { delivery: d.delivery.into(), payload, attempts: d.attempts.into_iter().map(AttemptView::from).collect() }
    }
}
