//! Transfers between locations as documents: `draft → in_transit → received`, and
//! `cancelled` from draft or in transit.
//!
//! A [`Transfer`] names a source, a destination (never the same) and its lines (at least one, one per
//! product, each > 0), fixed at creation and numbered `TR-<year>-<6 digits>`
//! ([`crate::numbers::TransferNumber`]). Shipping takes every line off the source, all or nothing;
//! receiving adds them at the destination; cancelling in transit puts them back at the source. Each
//! move returns a [`TransferStatusChange`]: the new state, the compare-and-set condition, the
//! [`StockInstruction`]s (one `Transfer` movement each) and the event. While in transit the lines
//! count as incoming stock at the destination ([`Transfer::incoming`]). The whole table is in
//! [`lifecycle`]; the port is [`TransferRepository`].
//!
//! ```
//! use time::macros::datetime;
//! use uuid::Uuid;
//! use warehouse_domain::numbers::TransferNumber;
//! use warehouse_domain::transfers::{NewTransfer, NewTransferLine, StockDirection, TransferDraft, TransferStatus};
//! use warehouse_domain::Stamp;
//!
//! let stamp = Stamp { at: datetime!(2026-03-01 10:00 UTC), by: None };
//! let (from, to) = (Uuid::from_u128(1), Uuid::from_u128(2));
//! let line = NewTransferLine { product_id: Uuid::from_u128(7), quantity: 5 };
//! let draft = TransferDraft::new(NewTransfer { from_location_id: from, to_location_id: to, lines: vec![line], notes: None }, stamp)
//!     .expect("valid");
//! let transfer = draft.into_transfer(TransferNumber::new(2026, 1).expect("valid")).expect("same year");
//!
//! let shipped = transfer.ship(stamp.at).expect("a draft ships");
//! assert_eq!(shipped.stock[0].direction, StockDirection::Take);
//! assert_eq!(shipped.stock[0].location_id, from);
//! assert_eq!(shipped.events[0].name, "transfer.shipped");
//!
//! // Called off on the way: the stock goes back where it came from.
//! let cancelled = shipped.transfer.cancel(stamp.at).expect("in transit");
//! assert_eq!(cancelled.transfer.status, TransferStatus::Cancelled);
//! assert_eq!((cancelled.stock[0].direction, cancelled.stock[0].location_id), (StockDirection::Put, from));
//! ```

pub mod lifecycle;
pub mod repository;
pub mod transfer;

pub use lifecycle::{StockDirection, StockInstruction, TransferStatusChange, RETURNED_REASON};
pub use repository::{TransferFilter, TransferRepository};
pub use transfer::{
    NewTransfer, NewTransferLine, Transfer, TransferDraft, TransferLine, TransferRecord, TransferStatus,
    MAX_TRANSFER_NOTES_CHARS,
};
