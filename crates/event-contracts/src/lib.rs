//! Event contracts: every event name and payload that crosses a context boundary.
//!
//! Contexts meet through contracts: a producer serializes one of these structs into an
//! [`EventEnvelope`]'s `data`, a consumer deserializes the same struct, and neither reads the other's
//! domain crate. The JSON shape on the wire is exactly what these types serialize to; it is stored in
//! the outbox and shown by `GET /api/v1/events`, so a field is renamed or removed only with a new
//! event name. Deserializing ignores unknown fields, so a producer may add one without breaking its
//! consumers.
//!
//! - [`identity`]: `identity.user.*` (registered, activated, suspended, banned, password changed),
//!   `identity.contact.*`, `identity.profile.*`;
//! - [`crm`]: `customer.*` and `customer.deal.*` (decisions §6);
//! - [`orders`]: `order.created`, `order.confirmed`, `order.cancelled`, `order.fulfilled` (decisions §7);
//! - [`warehouse`]: the warehouse's replies to order events (decisions §8).
//!
//! Envelope: `{id, name, aggregate_id, occurred_at, data}`; each module says what its aggregate id is.
//! Timestamps in payloads are RFC 3339 in UTC with a `Z` suffix, dates `YYYY-MM-DD`.

pub mod crm;
pub mod identity;
pub mod orders;
pub mod warehouse;

mod wire;

use serde::de::DeserializeOwned;
use serde::Serialize;
pub use shared_kernel::{EventEnvelope, PayloadError};
use time::OffsetDateTime;
use uuid::Uuid;

/// A payload that travels under exactly one event name.
///
/// Payloads shared by several names (an order's four events, a user's status moves) do not implement
/// it; their producers pick the name with [`EventEnvelope::with_payload`].
pub trait Topic: Serialize + DeserializeOwned {
    /// The event name.
    const NAME: &'static str;

    /// The envelope carrying this payload, about `aggregate_id`, that happened at `occurred_at`.
    fn to_event(&self, aggregate_id: Uuid, occurred_at: OffsetDateTime) -> EventEnvelope {
        EventEnvelope::with_payload(Self::NAME, aggregate_id, occurred_at, self)
    }

    /// This payload read from `event`; `None` when the event has another name.
    fn from_event(event: &EventEnvelope) -> Option<Result<Self, PayloadError>> {
        (event.name == Self::NAME).then(|| event.payload())
    }
}

#[cfg(test)]
pub(crate) mod test_support {
    use serde::de::DeserializeOwned;
    use serde::Serialize;
    use std::fmt::Debug;

    /// `payload` serializes to exactly `expected`, and `expected` (with an unknown field added)
    /// deserializes back to `payload`.
    pub fn round_trips<T>(payload: &T, expected: serde_json::Value)
    where
        T: Serialize + DeserializeOwned + PartialEq + Debug,
    {
        let json = serde_json::to_value(payload).expect("serializes");
        assert_eq!(json, expected);
        let mut extended = expected;
        extended.as_object_mut().expect("an object").insert("added_later".to_owned(), serde_json::json!(true));
        let back: T = serde_json::from_value(extended).expect("deserializes, ignoring the unknown field");
        assert_eq!(&back, payload);
    }
}
