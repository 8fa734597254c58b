//! Order status and reservation status: closed sets with stable snake_case wire names.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::OrderError;

/// Lifecycle `pending → confirmed → processing → fulfilled`, and `cancelled` from any of the first three.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderStatus {
    /// Just created: lines may be added, changed and removed; may be confirmed, cancelled or deleted.
    Pending,
    /// Accepted with its lines frozen; the warehouse has been asked to reserve the stock.
    Confirmed,
    /// Being prepared; may be fulfilled once the stock is reserved.
    Processing,
    /// Delivered: final; the warehouse commits the reserved stock.
    Fulfilled,
    /// Called off: final; the warehouse releases what it held. May be deleted.
    Cancelled,
}

impl OrderStatus {
    /// Every status, in lifecycle order.
    pub const ALL: [OrderStatus; 5] =
        [Self::Pending, Self::Confirmed, Self::Processing, Self::Fulfilled, Self::Cancelled];

    /// The wire name (`pending`, `confirmed`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Confirmed => "confirmed",
            Self::Processing => "processing",
            Self::Fulfilled => "fulfilled",
            Self::Cancelled => "cancelled",
        }
    }

    /// Case-insensitive; anything else is `VALIDATION_ERROR` on `status`.
    pub fn parse(text: &str) -> Result<Self, OrderError> {
        let text = text.trim();
        Self::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text))
            .ok_or(OrderError::Validation { field: "status", message: "is not a known order status" })
    }

    /// Lines may be added, changed or removed only while pending.
    pub fn is_editable(self) -> bool {
        self == Self::Pending
    }

    /// Only pending and cancelled orders may be deleted.
    pub fn is_deletable(self) -> bool {
        matches!(self, Self::Pending | Self::Cancelled)
    }
}

impl fmt::Display for OrderStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the warehouse holds for the order, as far as the order context has heard.
///
/// `none` before confirmation; `pending` once confirmed and not yet answered; then `reserved` or
/// `failed`; finally `released` (after cancel) or `committed` (after fulfil). The rules for folding in
/// replies are in [`crate::reservation`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReservationStatus {
    /// Nothing asked of the warehouse: the order was never confirmed.
    None,
    /// Confirmed; the warehouse's answer has not arrived yet.
    Pending,
    /// The warehouse holds stock for every line; the order may be fulfilled.
    Reserved,
    /// The warehouse could not reserve every line and holds nothing (see `reservation_error`).
    Failed,
    /// After cancellation, the warehouse released what it held (possibly nothing). Final.
    Released,
    /// After fulfilment, the warehouse committed the held stock: it left the warehouse. Final.
    Committed,
}

impl ReservationStatus {
    /// Every reservation status, in the order they are reached.
    pub const ALL: [ReservationStatus; 6] =
        [Self::None, Self::Pending, Self::Reserved, Self::Failed, Self::Released, Self::Committed];

    /// The wire name (`none`, `pending`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Pending => "pending",
            Self::Reserved => "reserved",
            Self::Failed => "failed",
            Self::Released => "released",
            Self::Committed => "committed",
        }
    }

    /// Case-insensitive; anything else is `VALIDATION_ERROR` on `reservation_status`.
    pub fn parse(text: &str) -> Result<Self, OrderError> {
        let text = text.trim();
        Self::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text))
            .ok_or(OrderError::Validation { field: "reservation_status", message: "is not a known reservation status" })
    }
}

impl fmt::Display for ReservationStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn order_status_round_trips() {
        for status in OrderStatus::ALL {
            assert_eq!(OrderStatus::parse(status.as_str()), Ok(status));
            let json = serde_json::to_value(status).expect("serializes");
            assert_eq!(json, serde_json::json!(status.as_str()));
            assert_eq!(serde_json::from_value::<OrderStatus>(json).expect("parses"), status);
        }
        assert_eq!(OrderStatus::parse(" Confirmed "), Ok(OrderStatus::Confirmed));
        assert_eq!(OrderStatus::parse("shipped").map_err(|e| e.field()), Err(Some("status")));
    }

    #[test]
    fn reservation_status_round_trips() {
        for status in ReservationStatus::ALL {
            assert_eq!(ReservationStatus::parse(status.as_str()), Ok(status));
            let json = serde_json::to_value(status).expect("serializes");
            assert_eq!(json, serde_json::json!(status.as_str()));
        }
        assert!(ReservationStatus::parse("held").is_err());
    }

    #[test]
    fn editable_and_deletable() {
        let editable: Vec<_> = OrderStatus::ALL.into_iter().filter(|s| s.is_editable()).collect();
        assert_eq!(editable, [OrderStatus::Pending]);
        let deletable: Vec<_> = OrderStatus::ALL.into_iter().filter(|s| s.is_deletable()).collect();
        assert_eq!(deletable, [OrderStatus::Pending, OrderStatus::Cancelled]);
    }
}
