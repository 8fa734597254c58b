//! Event contracts: every event name and payload that crosses a context boundary.
//!
//! Contexts meet through contracts: a producer serializes one of these structs into an
//! [`EventEnvelope`]'s `data`, a consumer deserializes the same struct, and neither reads the other's
//! domain crate. The JSON shape on the wire is exactly what these types serialize to; it is stored in
//! the outbox and shown by `GET /api/v1/events`, so a field is renamed or removed only with a new
//! event name. Deserializing ignores unknown fields, so a producer may add one without breaking its
//! consumers. The outbox, the buses and the retry rules around these contracts are described in
//! `docs/events.md`.
//!
//! - [`identity`]: `identity.user.*` (registered, activated, suspended, banned, password changed),
//!   `identity.contact.*`, `identity.profile.*`;
//! - [`crm`]: `customer.*` and `customer.deal.*`;
//! - [`orders`]: `order.created`, `order.confirmed`, `order.cancelled`, `order.fulfilled`;
//! - [`warehouse`]: the warehouse's replies to order events (`docs/orders-and-warehouse.md`, "Order
//!   flow") and its stock alerts (`warehouse.stock_low`, `warehouse.stock_replenished`);
//! - [`purchasing`]: `purchase_order.submitted`, `.received`, `.cancelled`, `.closed`;
//! - [`transfers`]: `transfer.shipped`, `transfer.received`, `transfer.cancelled`.
//! - [`imports`]: `import.completed`, `import.failed`.
//!
//! Envelope: `{id, name, aggregate_id, occurred_at, data}`; each module says what its aggregate id is.
//! Timestamps in payloads are RFC 3339 in UTC with a `Z` suffix, dates `YYYY-MM-DD`.
//!
//! # Using a contract
//!
//! Each module exports the event names as constants and one struct per payload. A payload that
//! travels under exactly one name implements [`Topic`], which builds the envelope and reads it back;
//! a payload shared by several names (the four order events) is put in an envelope with
//! [`EventEnvelope::with_payload`] under the chosen name and read back with
//! [`EventEnvelope::payload`]. Nothing here performs I/O or reads the clock: the caller passes the
//! operation's instant.
//!
//! ```
//! use event_contracts::warehouse::{ReservedLine, StockReserved, WarehouseReply, STOCK_RESERVED};
//! use event_contracts::Topic;
//! use time::macros::datetime;
//! use uuid::Uuid;
//!
//! let order_id = Uuid::from_u128(1);
//! let reserved = StockReserved {
//!     order_id,
//!     allocations: vec![ReservedLine { line_id: Uuid::from_u128(2), inventory_id: Uuid::from_u128(3), quantity: 5 }],
//! };
//!
//! // Producer: the envelope carries the payload under its one name, about the order.
//! let event = reserved.to_event(order_id, datetime!(2026-03-01 10:00 UTC));
//! assert_eq!(event.name, STOCK_RESERVED);
//! assert_eq!(event.aggregate_id, order_id);
//! assert_eq!(event.data["allocations"][0]["quantity"], 5);
//!
//! // Consumer: read it back by its name; another name gives `None`.
//! let back = StockReserved::from_event(&event).expect("its name").expect("its shape");
//! assert_eq!(back, reserved);
//! assert!(event_contracts::warehouse::StockReleased::from_event(&event).is_none());
//!
//! // The order side reads any of the four replies at once.
//! let reply = WarehouseReply::from_event(&event).expect("a reply").expect("its shape");
//! assert_eq!(reply.order_id(), order_id);
//! ```
//!
//! A payload shared by several names, read back by the name it travelled under:
//!
//! ```
//! use event_contracts::orders::{OrderEventData, OrderEventLine, ORDER_CONFIRMED, ORDER_EVENTS};
//! use event_contracts::EventEnvelope;
//! use shared_kernel::CurrencyCode;
//! use time::macros::datetime;
//! use uuid::Uuid;
//!
//! let data = OrderEventData {
//!     order_id: Uuid::from_u128(1),
//!     order_number: "ORD-2026-000001".to_owned(),
//!     customer_id: Uuid::from_u128(2),
//!     currency: CurrencyCode::parse("EUR").expect("an ISO 4217 code"),
//!     lines: vec![OrderEventLine { line_id: Uuid::from_u128(3), product_id: Uuid::from_u128(4), quantity: 2 }],
//! };
//! let event = EventEnvelope::with_payload(ORDER_CONFIRMED, data.order_id, datetime!(2026-03-01 10:00 UTC), &data);
//! assert_eq!(event.data["order_number"], "ORD-2026-000001");
//!
//! assert!(ORDER_EVENTS.contains(&event.name.as_str()));
//! let back: OrderEventData = event.payload().expect("the order payload");
//! assert_eq!(back, data);
//! ```

#![deny(missing_docs)]

pub mod crm;
pub mod identity;
pub mod imports;
pub mod orders;
pub mod purchasing;
pub mod transfers;
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
    /// The one event name this payload travels under (e.g. `warehouse.stock_reserved`); consumers
    /// dispatch on it.
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
