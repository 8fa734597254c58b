//! The storage port of transfers.
//!
//! Contract for adapters: each method is one transaction; a transfer's write is a compare-and-set on
//! its version and status (`Stale` when another writer won: reload and run the operation again, so
//! the loser gets the precise error); numbers come from a counter row per year in the create
//! transaction (unique under concurrent creators, never reused); every stock instruction writes one
//! `Transfer` movement in the same transaction; quantities never go negative nor on hand below
//! reserved (the inventory CHECKs are the last line of defence).

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest};
use uuid::Uuid;

use super::lifecycle::TransferStatusChange;
use super::transfer::{Transfer, TransferDraft, TransferStatus};
use crate::repository::RepoError;

/// `GET /transfers`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TransferFilter {
    /// Only transfers in this status.
    pub status: Option<TransferStatus>,
    /// Only transfers from this location.
    pub from_location_id: Option<Uuid>,
    /// Only transfers to this location.
    pub to_location_id: Option<Uuid>,
}

/// Where transfers are kept.
#[async_trait]
pub trait TransferRepository: Send + Sync {
    /// In one transaction: allocate the next sequence of `draft.year()` from the transfers' counter,
    /// build the transfer with [`TransferDraft::into_transfer`], insert it with its lines.
    async fn create(&self, draft: TransferDraft) -> Result<Transfer, RepoError>;
    /// The transfer with its lines; `NotFound` when there is none.
    async fn get(&self, id: Uuid) -> Result<Transfer, RepoError>;
    /// Newest first; `total` counts every match.
    async fn list(&self, filter: &TransferFilter, page: PageRequest) -> Result<Page<Transfer>, RepoError>;
    /// Writes a move in one transaction: the compare-and-set on `expected_version`/`expected_status`
    /// (`Stale`), then every stock instruction, inventory rows locked in id order: a take is
    /// `UPDATE … SET quantity_on_hand = quantity_on_hand − $q WHERE … AND quantity_on_hand − $q >=
    /// quantity_reserved`, and one that matches no row (or a source without a record) rolls back the
    /// whole move with `Refused(InsufficientStock)`; a put inserts the record if missing (`ON CONFLICT
    /// DO NOTHING`) and adds to it; one `Transfer` movement per instruction, stamped
    /// `change.transfer.updated_at` and `by`; the stock alerts ([`crate::alerts`]) each record's
    /// change causes; the events.
    async fn save(&self, change: &TransferStatusChange, by: Option<Uuid>) -> Result<(), RepoError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_is_object_safe() {
        fn takes(_: Option<&dyn TransferRepository>) {}
        takes(None);
    }
}
