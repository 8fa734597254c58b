//! Transfers in memory: a move writes the transfer, every line's stock (all or nothing), their
//! movements, the stock alerts and the event in one step.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest, StorageError};
use uuid::Uuid;

use super::batch::{commit, StockBatch};
use super::purchasing::next_sequence;
use super::{page_of, InMemoryWarehouse};
use crate::error::WarehouseError;
use crate::numbers::TransferNumber;
use crate::operations::Stamp;
use crate::repository::RepoError;
use crate::transfers::{
    StockDirection, Transfer, TransferDraft, TransferFilter, TransferRepository, TransferStatusChange,
};

#[async_trait]
impl TransferRepository for InMemoryWarehouse {
    async fn create(&self, draft: TransferDraft) -> Result<Transfer, RepoError> {
        let mut state = self.lock();
        let year = draft.year();
        let sequence = next_sequence(&state, "TR", year);
        let transfer = draft.into_transfer(TransferNumber::new(year, sequence)?)?;
        state.counters.insert(("TR", year), sequence);
        state.transfers.insert(transfer.id, transfer.clone());
        Ok(transfer)
    }

    async fn get(&self, id: Uuid) -> Result<Transfer, RepoError> {
        self.lock().transfers.get(&id).cloned().ok_or(StorageError::NotFound.into())
    }

    async fn list(&self, filter: &TransferFilter, page: PageRequest) -> Result<Page<Transfer>, RepoError> {
        let state = self.lock();
        let mut transfers: Vec<Transfer> = state
            .transfers
            .values()
            .filter(|t| {
                filter.status.is_none_or(|s| t.status == s)
                    && filter.from_location_id.is_none_or(|id| t.from_location_id == id)
                    && filter.to_location_id.is_none_or(|id| t.to_location_id == id)
            })
            .cloned()
            .collect();
        transfers.sort_by_key(|t| std::cmp::Reverse((t.created_at, t.id)));
        Ok(page_of(transfers, page))
    }

    async fn save(&self, change: &TransferStatusChange, by: Option<Uuid>) -> Result<(), RepoError> {
        let mut state = self.lock();
        let next = &change.transfer;
        let stored = state.transfers.get(&next.id).ok_or(StorageError::NotFound)?;
        if stored.version != change.expected_version || stored.status != change.expected_status {
            return Err(StorageError::Stale.into());
        }
        let stamp = Stamp { at: next.updated_at, by };
        let mut batch = StockBatch::new(&state, stamp);
        for instruction in &change.stock {
            let make = instruction.direction == StockDirection::Put;
            let record = batch.record(instruction.product_id, instruction.location_id, make)?;
            // A source without a record has nothing to take.
            let record =
                record.ok_or(WarehouseError::InsufficientStock { requested: instruction.quantity, available: 0 })?;
            batch.push(instruction.apply(&record, stamp)?);
        }
        let (created, changes) = batch.finish();
        state.transfers.insert(next.id, next.clone());
        state.events.extend(change.events.iter().cloned());
        commit(&mut state, created, &changes);
        Ok(())
    }
}
