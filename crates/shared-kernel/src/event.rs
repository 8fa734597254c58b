//! The event envelope that travels through the outbox and the bus.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

/// `{id, name, aggregate_id, occurred_at, data}` as decided for the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventEnvelope {
    pub id: Uuid,
    pub name: String,
    pub aggregate_id: Uuid,
    #[serde(with = "time::serde::rfc3339")]
    pub occurred_at: OffsetDateTime,
    pub data: serde_json::Value,
}

impl EventEnvelope {
    /// A new event happening now, with a fresh time-ordered id.
    pub fn new(name: impl Into<String>, aggregate_id: Uuid, data: serde_json::Value) -> Self {
        Self { id: crate::new_id(), name: name.into(), aggregate_id, occurred_at: OffsetDateTime::now_utc(), data }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_json() {
        let event = EventEnvelope::new("order.confirmed", crate::new_id(), serde_json::json!({"a": 1}));
        let text = serde_json::to_string(&event).expect("serializes");
        let back: EventEnvelope = serde_json::from_str(&text).expect("parses");
        assert_eq!(back.id, event.id);
        assert_eq!(back.name, "order.confirmed");
        assert_eq!(back.data["a"], 1);
        assert!(text.contains("\"occurred_at\":\""));
    }
}
