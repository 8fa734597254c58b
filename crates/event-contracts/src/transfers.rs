//! Events of transfers between locations. Aggregate id = the
//! transfer's id.
//!
//! * `transfer.shipped`: every line left the source (one `Transfer` movement each);
//! * `transfer.received`: every line arrived at the destination (one `Transfer` movement each);
//! * `transfer.cancelled`: the transfer was called off; when it was in transit, its stock went back
//!   to the source (`stock_returned`). The specification does not list this one; Tally raises it because a
//!   cancellation in transit changes stock, and webhooks should hear of every such change.
//!
//! All three carry [`TransferEventData`].

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Every line of a draft transfer was taken off its source location: the stock is in transit.
pub const TRANSFER_SHIPPED: &str = "transfer.shipped";
/// Every line of a transfer in transit was added at its destination.
pub const TRANSFER_RECEIVED: &str = "transfer.received";
/// A draft or in-transit transfer was cancelled (in transit: its stock was put back at the source).
pub const TRANSFER_CANCELLED: &str = "transfer.cancelled";

/// The names [`TransferEventData`] travels under.
pub const TRANSFER_EVENTS: [&str; 3] = [TRANSFER_SHIPPED, TRANSFER_RECEIVED, TRANSFER_CANCELLED];

/// The `data` of every transfer event: the transfer after the move, with its lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransferEventData {
    /// The transfer's id; also the envelope's aggregate id.
    pub transfer_id: Uuid,
    /// `TR-<year>-<6 digits>`.
    pub transfer_number: String,
    /// Where the stock is taken from.
    pub from_location_id: Uuid,
    /// Where the stock goes.
    pub to_location_id: Uuid,
    /// The status after the move (`in_transit`, `received`, `cancelled`).
    pub status: String,
    /// `transfer.cancelled` only: whether stock was put back at the source (the transfer was in
    /// transit); `false` for the other two names and for a cancelled draft.
    #[serde(default)]
    pub stock_returned: bool,
    /// Every line of the transfer.
    pub lines: Vec<TransferEventLine>,
}

/// One line of a transfer in its events.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct TransferEventLine {
    /// The line's id.
    pub line_id: Uuid,
    /// The product moved.
    pub product_id: Uuid,
    /// Units moved, > 0.
    pub quantity: i64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::round_trips;
    use serde_json::json;
    use shared_kernel::EventEnvelope;
    use time::macros::datetime;

    #[test]
    fn transfer_events_keep_their_wire_shape() {
        let (transfer, from, to, line, product) =
            (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3), Uuid::from_u128(4), Uuid::from_u128(5));
        let data = TransferEventData {
            transfer_id: transfer,
            transfer_number: "TR-2026-000001".to_owned(),
            from_location_id: from,
            to_location_id: to,
            status: "in_transit".to_owned(),
            stock_returned: false,
            lines: vec![TransferEventLine { line_id: line, product_id: product, quantity: 7 }],
        };
        round_trips(
            &data,
            json!({"transfer_id": transfer, "transfer_number": "TR-2026-000001", "from_location_id": from,
                   "to_location_id": to, "status": "in_transit", "stock_returned": false,
                   "lines": [{"line_id": line, "product_id": product, "quantity": 7}]}),
        );
        for name in TRANSFER_EVENTS {
            let event = EventEnvelope::with_payload(name, transfer, datetime!(2026-03-01 10:00 UTC), &data);
            assert_eq!(event.payload::<TransferEventData>().expect("its shape"), data);
        }
        let mut older = serde_json::to_value(&data).expect("serializes");
        older.as_object_mut().expect("an object").remove("stock_returned");
        let back: TransferEventData = serde_json::from_value(older).expect("stock_returned may be absent");
        assert!(!back.stock_returned);
    }
}
