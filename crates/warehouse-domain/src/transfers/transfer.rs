//! The `Transfer` document: lines of stock moving from one location to another, and its status.

use std::collections::HashSet;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::WarehouseError;
use crate::numbers::TransferNumber;
use crate::operations::Stamp;
use crate::text;

/// Longest transfer notes, in characters after trimming.
pub const MAX_TRANSFER_NOTES_CHARS: usize = 5000;

/// `draft → in_transit → received`, and `cancelled` from draft or in transit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TransferStatus {
    /// Written, nothing moved yet.
    Draft,
    /// Taken off the source; counted as incoming at the destination.
    InTransit,
    /// Added at the destination. Final.
    Received,
    /// Called off (from in transit: the stock went back to the source). Final.
    Cancelled,
}

impl TransferStatus {
    /// Every status, in lifecycle order.
    pub const ALL: [TransferStatus; 4] = [Self::Draft, Self::InTransit, Self::Received, Self::Cancelled];

    /// The wire name (`draft`, `in_transit`, `received`, `cancelled`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Draft => "draft",
            Self::InTransit => "in_transit",
            Self::Received => "received",
            Self::Cancelled => "cancelled",
        }
    }

    /// Case-insensitive, trimmed; anything else is `VALIDATION_ERROR` on `status`.
    pub fn parse(text: &str) -> Result<Self, WarehouseError> {
        let text = text.trim();
        Self::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text))
            .ok_or(WarehouseError::Validation { field: "status", message: "is not a known transfer status" })
    }
}

impl fmt::Display for TransferStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One line of a transfer: a product and how many units move. Lines are fixed at creation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct TransferLine {
    /// The line's id (UUID v7).
    pub id: Uuid,
    /// The product moved; at most one line per product.
    pub product_id: Uuid,
    /// Units moved, > 0.
    pub quantity: i64,
}

/// The stored and wire shape of a transfer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TransferRecord {
    /// The transfer's id (UUID v7); also its events' aggregate id and its movements' `reference_id`.
    pub id: Uuid,
    /// `TR-<year>-<6 digits>`; never changes.
    pub transfer_number: TransferNumber,
    /// Where the stock is taken from.
    pub from_location_id: Uuid,
    /// Where it goes; never the source.
    pub to_location_id: Uuid,
    /// Where it is in its lifecycle.
    pub status: TransferStatus,
    /// At least one line, one per product.
    pub lines: Vec<TransferLine>,
    /// Free text for people.
    pub notes: Option<String>,
    /// When it was shipped.
    #[serde(with = "time::serde::rfc3339::option")]
    pub shipped_at: Option<OffsetDateTime>,
    /// When it was received.
    #[serde(with = "time::serde::rfc3339::option")]
    pub received_at: Option<OffsetDateTime>,
    /// When it was cancelled.
    #[serde(with = "time::serde::rfc3339::option")]
    pub cancelled_at: Option<OffsetDateTime>,
    /// The user who created it; `None` for the system.
    pub created_by: Option<Uuid>,
    /// When it was created.
    #[serde(with = "time::serde::rfc3339")]
    pub created_at: OffsetDateTime,
    /// When it last changed.
    #[serde(with = "time::serde::rfc3339")]
    pub updated_at: OffsetDateTime,
    /// The stored version: 1 at creation, +1 per saved change; the compare-and-set condition.
    #[serde(skip)]
    pub version: i64,
}

/// A transfer whose invariants hold (two distinct locations, at least one line, positive quantities,
/// timestamps matching the status). Read its fields through `Deref`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct Transfer(TransferRecord);

impl Deref for Transfer {
    type Target = TransferRecord;
    fn deref(&self) -> &TransferRecord {
        &self.0
    }
}

impl Transfer {
    /// Rebuilds a transfer from storage without re-validating.
    pub fn restore(record: TransferRecord) -> Self {
        Self(record)
    }

    /// The stored shape, for the adapter to write.
    pub fn record(&self) -> &TransferRecord {
        &self.0
    }

    /// The stored shape, taken out of the transfer.
    pub fn into_record(self) -> TransferRecord {
        self.0
    }

    /// Units of `product_id` this transfer brings to `location_id` that have not arrived: its part of
    /// that location's `quantity_incoming` (only while in transit, only at the destination).
    pub fn incoming(&self, product_id: Uuid, location_id: Uuid) -> i64 {
        if self.status != TransferStatus::InTransit || self.to_location_id != location_id {
            return 0;
        }
        self.lines.iter().filter(|l| l.product_id == product_id).fold(0i64, |sum, l| sum.saturating_add(l.quantity))
    }

    /// A copy to change: `updated_at = now`, next version.
    pub(super) fn next_record(&self, now: OffsetDateTime) -> TransferRecord {
        TransferRecord { updated_at: now, version: self.version.saturating_add(1), ..self.0.clone() }
    }

    pub(super) fn wrap(record: TransferRecord) -> Self {
        Self(record)
    }
}

/// A line of `POST /transfers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NewTransferLine {
    /// The product to move; whether it exists is the handler's question.
    pub product_id: Uuid,
    /// Units to move, > 0.
    pub quantity: i64,
}

/// `POST /transfers`: `{from_location_id, to_location_id, lines: [{product_id, quantity}], notes?}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTransfer {
    /// The source; whether it exists is the handler's question.
    pub from_location_id: Uuid,
    /// The destination; must differ from the source.
    pub to_location_id: Uuid,
    /// At least one line, at most one per product.
    pub lines: Vec<NewTransferLine>,
    /// Up to [`MAX_TRANSFER_NOTES_CHARS`]; blank is `None`.
    pub notes: Option<String>,
}

/// A validated transfer without a number yet: the adapter allocates the number in its create
/// transaction and calls [`TransferDraft::into_transfer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransferDraft {
    id: Uuid,
    input: NewTransfer,
    stamp: Stamp,
}

impl TransferDraft {
    /// Checks, in this order: the locations differ (`VALIDATION_ERROR` on `to_location_id`), at
    /// least one line (`VALIDATION_ERROR` on `lines`), every quantity > 0 (`INVALID_QUANTITY`), no
    /// product twice (`VALIDATION_ERROR` on `lines`), the notes.
    pub fn new(input: NewTransfer, stamp: Stamp) -> Result<Self, WarehouseError> {
        if input.from_location_id == input.to_location_id {
            return Err(WarehouseError::Validation {
                field: "to_location_id",
                message: "must differ from from_location_id",
            });
        }
        if input.lines.is_empty() {
            return Err(WarehouseError::Validation { field: "lines", message: "must have at least one line" });
        }
        if input.lines.iter().any(|l| l.quantity <= 0) {
            return Err(WarehouseError::InvalidQuantity);
        }
        let mut products = HashSet::with_capacity(input.lines.len());
        if !input.lines.iter().all(|l| products.insert(l.product_id)) {
            return Err(WarehouseError::Validation { field: "lines", message: "must not name a product twice" });
        }
        let notes = text::optional(input.notes.as_deref(), "notes", MAX_TRANSFER_NOTES_CHARS)?;
        Ok(Self { id: shared_kernel::new_id(), input: NewTransfer { notes, ..input }, stamp })
    }

    /// The id the transfer will have.
    pub fn id(&self) -> Uuid {
        self.id
    }

    /// The year the number's sequence belongs to.
    pub fn year(&self) -> i32 {
        self.stamp.at.year()
    }

    /// The draft transfer with its number, version 1; creation raises no event. A number of another
    /// year is refused (`VALIDATION_ERROR` on `transfer_number`).
    pub fn into_transfer(self, number: TransferNumber) -> Result<Transfer, WarehouseError> {
        if number.year() != self.year() {
            return Err(WarehouseError::Validation {
                field: "transfer_number",
                message: "year must be the year of creation",
            });
        }
        let lines = self
            .input
            .lines
            .iter()
            .map(|l| TransferLine { id: shared_kernel::new_id(), product_id: l.product_id, quantity: l.quantity })
            .collect();
        Ok(Transfer(TransferRecord {
            id: self.id,
            transfer_number: number,
            from_location_id: self.input.from_location_id,
            to_location_id: self.input.to_location_id,
            status: TransferStatus::Draft,
            lines,
            notes: self.input.notes,
            shipped_at: None,
            received_at: None,
            cancelled_at: None,
            created_by: self.stamp.by,
            created_at: self.stamp.at,
            updated_at: self.stamp.at,
            version: 1,
        }))
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn at(seconds: i64) -> OffsetDateTime {
        OffsetDateTime::from_unix_timestamp(1_780_000_000 + seconds).expect("valid time")
    }

    pub(crate) fn stamp(seconds: i64) -> Stamp {
        Stamp { at: at(seconds), by: Some(Uuid::from_u128(99)) }
    }

    pub(crate) const FROM: Uuid = Uuid::from_u128(20);
    pub(crate) const TO: Uuid = Uuid::from_u128(21);

    pub(crate) fn new_transfer(lines: &[(u128, i64)]) -> NewTransfer {
        NewTransfer {
            from_location_id: FROM,
            to_location_id: TO,
            lines: lines
                .iter()
                .map(|&(p, quantity)| NewTransferLine { product_id: Uuid::from_u128(p), quantity })
                .collect(),
            notes: Some(" by van ".into()),
        }
    }

    /// A draft moving 5 of product 1 and 2 of product 2.
    pub(crate) fn draft() -> Transfer {
        let draft = TransferDraft::new(new_transfer(&[(1, 5), (2, 2)]), stamp(0)).expect("valid");
        let number = TransferNumber::new(draft.year(), 1).expect("valid");
        draft.into_transfer(number).expect("same year")
    }

    #[test]
    fn a_draft_becomes_a_numbered_draft_transfer() {
        let transfer = draft();
        assert_eq!(transfer.status, TransferStatus::Draft);
        assert_eq!(transfer.transfer_number.to_string(), format!("TR-{}-000001", at(0).year()));
        assert_eq!(transfer.lines.iter().map(|l| l.quantity).collect::<Vec<_>>(), [5, 2]);
        assert_eq!(
            (transfer.notes.as_deref(), transfer.version, transfer.created_by),
            (Some("by van"), 1, Some(Uuid::from_u128(99)))
        );
        let json = serde_json::to_value(&transfer).expect("serializes");
        assert_eq!(json["status"], "draft");
        assert_eq!(json["lines"][0]["quantity"], 5);
        assert!(json["shipped_at"].is_null());
        assert!(json.get("version").is_none());
    }

    #[test]
    fn a_draft_refuses_bad_input() {
        let refuse = |input: NewTransfer| TransferDraft::new(input, stamp(0)).map(|_| ()).map_err(|e| (e.field(), e));
        let same = NewTransfer { to_location_id: FROM, ..new_transfer(&[(1, 1)]) };
        assert_eq!(refuse(same).map_err(|e| e.0), Err(Some("to_location_id")));
        assert_eq!(refuse(new_transfer(&[])).map_err(|e| e.0), Err(Some("lines")));
        assert_eq!(refuse(new_transfer(&[(1, 1), (2, 0)])).map_err(|e| e.1), Err(WarehouseError::InvalidQuantity));
        assert_eq!(refuse(new_transfer(&[(1, -1)])).map_err(|e| e.1), Err(WarehouseError::InvalidQuantity));
        assert_eq!(refuse(new_transfer(&[(1, 1), (1, 2)])).map_err(|e| e.0), Err(Some("lines")));
        let long = NewTransfer { notes: Some("n".repeat(MAX_TRANSFER_NOTES_CHARS + 1)), ..new_transfer(&[(1, 1)]) };
        assert_eq!(refuse(long).map_err(|e| e.0), Err(Some("notes")));
        let draft = TransferDraft::new(new_transfer(&[(1, 1)]), stamp(0)).expect("valid");
        let wrong_year = TransferNumber::new(draft.year() + 1, 1).expect("valid");
        assert_eq!(draft.into_transfer(wrong_year).map_err(|e| e.field()), Err(Some("transfer_number")));
    }

    #[test]
    fn statuses_round_trip() {
        for status in TransferStatus::ALL {
            assert_eq!(TransferStatus::parse(status.as_str()), Ok(status));
            assert_eq!(serde_json::to_value(status).expect("serializes"), serde_json::json!(status.as_str()));
        }
        assert_eq!(TransferStatus::parse("In_Transit"), Ok(TransferStatus::InTransit));
        assert_eq!(TransferStatus::parse("shipped").map_err(|e| e.field()), Err(Some("status")));
    }
}
