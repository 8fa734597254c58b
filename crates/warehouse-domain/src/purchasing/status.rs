//! A purchase order's status: a closed set with stable snake_case wire names.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::WarehouseError;

/// `draft → ordered → partially_received → received`; `cancelled` from draft (or ordered with
/// nothing received), `closed` (short) from partially received. See [`crate::purchasing`] for the
/// whole table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PurchaseOrderStatus {
    /// Being written: lines may be added, changed and removed; not yet sent to the supplier.
    Draft,
    /// Sent to the supplier; nothing has arrived yet. Its lines count as incoming stock.
    Ordered,
    /// Some units arrived, some are still outstanding (incoming).
    PartiallyReceived,
    /// Every line arrived in full. Final.
    Received,
    /// Called off before anything arrived. Final.
    Cancelled,
    /// Closed short: what arrived stays, the rest is no longer expected. Final.
    Closed,
}

impl PurchaseOrderStatus {
    /// Every status, in lifecycle order.
    pub const ALL: [PurchaseOrderStatus; 6] =
        [Self::Draft, Self::Ordered, Self::PartiallyReceived, Self::Received, Self::Cancelled, Self::Closed];

    /// The wire name (`draft`, `ordered`, `partially_received`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::Ordered => "ordered",
            Self::PartiallyReceived => "partially_received",
            Self::Received => "received",
            Self::Cancelled => "cancelled",
            Self::Closed => "closed",
        }
    }

    /// Case-insensitive, trimmed; anything else is `VALIDATION_ERROR` on `status`.
    pub fn parse(text: &str) -> Result<Self, WarehouseError> {
        let text = text.trim();
        Self::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text))
            .ok_or(WarehouseError::Validation { field: "status", message: "is not a known purchase order status" })
    }

    /// Lines change only in `draft` (else `PO_NOT_EDITABLE`).
    pub fn is_editable(self) -> bool {
        self == Self::Draft
    }

    /// Stock may be received: `ordered` or `partially_received`. What such an order still expects is
    /// the location's `quantity_incoming`.
    pub fn expects_stock(self) -> bool {
        matches!(self, Self::Ordered | Self::PartiallyReceived)
    }

    /// Not finished: `draft`, `ordered` or `partially_received`. A supplier with an open purchase
    /// order cannot be deleted (`SUPPLIER_HAS_OPEN_ORDERS`).
    pub fn is_open(self) -> bool {
        !self.is_final()
    }

    /// `received`, `cancelled` or `closed`: no move leaves these.
    pub fn is_final(self) -> bool {
        matches!(self, Self::Received | Self::Cancelled | Self::Closed)
    }
}

impl fmt::Display for PurchaseOrderStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PurchaseOrderStatus::*;

    #[test]
    fn round_trips_and_sets() {
        for status in PurchaseOrderStatus::ALL {
            assert_eq!(PurchaseOrderStatus::parse(status.as_str()), Ok(status));
            assert_eq!(serde_json::to_value(status).expect("serializes"), serde_json::json!(status.as_str()));
            assert_eq!(status.is_open(), !status.is_final());
        }
        assert_eq!(PurchaseOrderStatus::parse(" Partially_Received "), Ok(PartiallyReceived));
        assert_eq!(PurchaseOrderStatus::parse("shipped").map_err(|e| e.field()), Err(Some("status")));
        let pick = |f: fn(PurchaseOrderStatus) -> bool| -> Vec<_> {
            PurchaseOrderStatus::ALL.into_iter().filter(|s| f(*s)).collect()
        };
        assert_eq!(pick(PurchaseOrderStatus::is_editable), [Draft]);
        assert_eq!(pick(PurchaseOrderStatus::expects_stock), [Ordered, PartiallyReceived]);
        assert_eq!(pick(PurchaseOrderStatus::is_open), [Draft, Ordered, PartiallyReceived]);
    }
}
