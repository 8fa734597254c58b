//! What the webhook store keeps and answers, and the checks an endpoint passes before it is saved.

use std::collections::BTreeMap;

use time::OffsetDateTime;
use uuid::Uuid;

use super::address::AddressPolicy;
use super::EventFilter;

pub const MAX_DESCRIPTION_CHARS: usize = 500;

/// A webhook endpoint; its secret is never part of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub id: Uuid,
    pub url: String,
    pub description: Option<String>,
    pub events: Vec<String>,
    pub enabled: bool,
    /// `manual` or `failing` while disabled.
    pub disabled_reason: Option<String>,
    pub failing_since: Option<OffsetDateTime>,
    /// The user who made (or last replaced) it; through `created_by_key` when with an API key.
    pub created_by: Option<Uuid>,
    pub created_by_key: Option<Uuid>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub version: i64,
}

/// Who makes or replaces an endpoint: what it hears is bounded by what they may read
/// (docs/webhooks.md), a key's permissions and its owner's both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Creator {
    pub user: Uuid,
    pub key: Option<Uuid>,
}

/// An endpoint as its owner describes it, checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointInput {
    pub url: String,
    pub events: Vec<String>,
    pub description: Option<String>,
    pub enabled: bool,
}

impl EndpointInput {
    /// Every problem at once, by field.
    pub fn validate(
        url: &str,
        events: &[String],
        description: Option<&str>,
        enabled: bool,
        policy: AddressPolicy,
    ) -> Result<Self, BTreeMap<String, String>> {
        let mut problems = BTreeMap::new();
        let url = match policy.check_url(url) {
            Ok(url) => url.to_string(),
            Err(refused) => {
                problems.insert("url".to_owned(), refused.to_string());
                String::new()
            }
        };
        let events = match EventFilter::parse(events) {
            Ok(filter) => filter.patterns().to_vec(),
            Err(invalid) => {
                problems.insert("events".to_owned(), invalid.to_string());
                Vec::new()
            }
        };
        let description = description.map(str::trim).filter(|d| !d.is_empty()).map(str::to_owned);
        if description.as_ref().is_some_and(|d| d.chars().count() > MAX_DESCRIPTION_CHARS) {
            problems.insert("description".to_owned(), format!("at most {MAX_DESCRIPTION_CHARS} characters"));
        }
        if problems.is_empty() {
            Ok(Self { url, events, description, enabled })
        } else {
            Err(problems)
        }
    }
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeliveryStatus {
    Pending,
    Succeeded,
    Failed,
}

impl DeliveryStatus {
    pub const ALL: [Self; 3] = [Self::Pending, Self::Succeeded, Self::Failed];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Succeeded => "succeeded",
            Self::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// A delivery of one event (or test ping) to one endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivery {
    pub id: Uuid,
    pub endpoint_id: Uuid,
    pub event_id: Option<Uuid>,
    pub event_type: String,
    pub status: String,
    pub attempts: i32,
    pub next_attempt_at: Option<OffsetDateTime>,
    pub last_attempt_at: Option<OffsetDateTime>,
    pub last_response_status: Option<i32>,
    pub created_at: OffsetDateTime,
    pub completed_at: Option<OffsetDateTime>,
}

impl Delivery {
    /// The `webhook-id` of every attempt.
    pub fn webhook_id(&self) -> String {
        webhook_id(self.id)
    }
}

/// `msg_<delivery id>`: the Standard Webhooks message id, the same on every attempt.
pub fn webhook_id(delivery: Uuid) -> String {
    format!("msg_{}", delivery.simple())
}

/// One attempt of a delivery.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attempt {
    pub attempted_at: OffsetDateTime,
    pub response_status: Option<i32>,
    pub duration_ms: i32,
    pub response_body: String,
    pub error: Option<String>,
}

/// A delivery with the body it sends and its attempts, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryDetail {
    pub delivery: Delivery,
    /// The permission resource whose `read` the payload needs; `None` for a test ping.
    pub read_resource: Option<String>,
    pub payload: String,
    pub attempts: Vec<Attempt>,
}

/// Why a webhook operation was refused.
#[derive(Debug, thiserror::Error)]
pub enum WebhookError {
    #[error("no such webhook endpoint or delivery")]
    NotFound,
    #[error("the endpoint is disabled; enable it first")]
    Disabled,
    #[error("the delivery is being sent right now; try again when the attempt is over")]
    InProgress,
    #[error(transparent)]
    Storage(#[from] shared_kernel::StorageError),
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: AddressPolicy = AddressPolicy { allow_private: false };

    #[test]
    fn inputs_are_checked_field_by_field() {
        let events = vec!["order.*".to_owned(), "customer.created".to_owned()];
        let ok = EndpointInput::validate("https://hooks.example.com/t", &events, Some("  shop  "), true, STRICT)
            .expect("valid");
        assert_eq!(ok.description.as_deref(), Some("shop"));
        assert_eq!(ok.events, events);
        let blank = EndpointInput::validate("https://hooks.example.com/t", &events, Some("  "), true, STRICT);
        assert_eq!(blank.expect("valid").description, None);

        let problems = EndpointInput::validate("http://127.0.0.1/", &[], Some(&"d".repeat(501)), true, STRICT)
            .expect_err("three problems");
        assert_eq!(problems.keys().collect::<Vec<_>>(), ["description", "events", "url"]);
    }

    #[test]
    fn statuses_round_trip_and_ids_are_prefixed() {
        for status in DeliveryStatus::ALL {
            assert_eq!(DeliveryStatus::parse(status.as_str()), Some(status));
        }
        assert_eq!(DeliveryStatus::parse("done"), None);
        assert_eq!(webhook_id(Uuid::from_u128(1)), "msg_00000000000000000000000000000001");
    }
}
