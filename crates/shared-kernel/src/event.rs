//! The event envelope that travels through the outbox and the bus.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

/// Something that happened to one aggregate, as it is stored in the outbox, carried by the bus and
/// shown on the wire: `{id, name, aggregate_id, occurred_at, data}` (docs/events.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EventEnvelope {
    /// The event's own identity (UUID v7): consumers' inboxes use it to handle a delivery once.
    pub id: Uuid,
    /// The event's dotted name (`customer.created`, `identity.user.banned`), which says what `data`
    /// holds; handlers subscribe by it.
    pub name: String,
    /// The aggregate the event is about (the customer, the order, ...).
    pub aggregate_id: Uuid,
    /// When it happened: the instant of the operation that caused it, RFC 3339 on the wire.
    #[serde(with = "time::serde::rfc3339")]
    pub occurred_at: OffsetDateTime,
    /// The payload, a JSON object whose shape the `name` promises (the contracts of `event-contracts`).
    pub data: serde_json::Value,
}

impl EventEnvelope {
    /// A new event happening now, with a fresh time-ordered id.
    pub fn new(name: impl Into<String>, aggregate_id: Uuid, data: serde_json::Value) -> Self {
        Self { id: crate::new_id(), name: name.into(), aggregate_id, occurred_at: OffsetDateTime::now_utc(), data }
    }

    /// A new event that happened at `occurred_at` (the operation's instant, not the clock at build
    /// time), its `data` a typed payload (the contracts of the `event-contracts` crate).
    ///
    /// Serializing a payload made of strings, numbers, UUIDs, options and lists cannot fail, so a
    /// failure here is a bug in a payload type, reported loudly rather than sent as a broken event.
    pub fn with_payload<T: Serialize>(
        name: impl Into<String>,
        aggregate_id: Uuid,
        occurred_at: OffsetDateTime,
        payload: &T,
    ) -> Self {
        let data = serde_json::to_value(payload).expect("an event payload serializes to JSON");
        let mut event = Self::new(name, aggregate_id, data);
        event.occurred_at = occurred_at;
        event
    }

    /// The `data` read as the payload type `T`; unknown fields are ignored unless `T` denies them.
    pub fn payload<T: DeserializeOwned>(&self) -> Result<T, PayloadError> {
        T::deserialize(&self.data).map_err(|e| PayloadError { name: self.name.clone(), message: e.to_string() })
    }
}

/// An event's `data` does not have the shape its name promises: producer and consumer disagree on
/// the event's contract.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed {name} data: {message}")]
pub struct PayloadError {
    /// The name of the event whose payload failed to read.
    pub name: String,
    /// What the JSON reader found wrong (a missing field, a wrong type).
    pub message: String,
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

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Ping {
        n: i64,
    }

    #[test]
    fn carries_a_typed_payload() {
        let at = OffsetDateTime::from_unix_timestamp(1_780_000_000).expect("valid time");
        let event = EventEnvelope::with_payload("ping", Uuid::nil(), at, &Ping { n: 3 });
        assert_eq!((event.name.as_str(), event.occurred_at, &event.data), ("ping", at, &serde_json::json!({"n": 3})));
        assert_eq!(event.payload::<Ping>(), Ok(Ping { n: 3 }));
        let broken = EventEnvelope::new("ping", Uuid::nil(), serde_json::json!({"n": "three"}));
        let error = broken.payload::<Ping>().expect_err("wrong type");
        assert!(error.to_string().starts_with("malformed ping data: "), "{error}");
    }
}
