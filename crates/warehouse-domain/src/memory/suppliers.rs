//! Suppliers in memory.

use async_trait::async_trait;
use shared_kernel::{Page, PageRequest, StorageError};
use time::OffsetDateTime;
use uuid::Uuid;

use super::{contains, page_of, InMemoryWarehouse, Stored};
use crate::error::WarehouseError;
use crate::purchasing::{Supplier, SupplierFilter, SupplierRecord, SupplierRepository};
use crate::repository::RepoError;

#[async_trait]
impl SupplierRepository for InMemoryWarehouse {
    async fn create(&self, supplier: &Supplier) -> Result<(), RepoError> {
        let mut state = self.lock();
        if state.suppliers.contains_key(&supplier.id) {
            return Err(StorageError::Conflict { field: "resource" }.into());
        }
        state.suppliers.insert(supplier.id, Stored::new(supplier.record().clone()));
        Ok(())
    }

    async fn get(&self, id: Uuid) -> Result<Supplier, RepoError> {
        let state = self.lock();
        let record = state.suppliers.get(&id).and_then(Stored::live).ok_or(StorageError::NotFound)?;
        Ok(Supplier::restore(record.clone()))
    }

    async fn get_many(&self, ids: &[Uuid]) -> Result<Vec<Supplier>, RepoError> {
        let state = self.lock();
        Ok(ids
            .iter()
            .filter_map(|id| state.suppliers.get(id).and_then(Stored::live))
            .map(|record| Supplier::restore(record.clone()))
            .collect())
    }

    async fn list(&self, filter: &SupplierFilter, page: PageRequest) -> Result<Page<Supplier>, RepoError> {
        let state = self.lock();
        let mut records: Vec<SupplierRecord> = state
            .suppliers
            .values()
            .filter_map(Stored::live)
            .filter(|s| {
                let email = s.email.as_ref().map(|e| e.as_str()).unwrap_or_default();
                filter.is_active.is_none_or(|a| s.is_active == a)
                    && contains(filter.search.as_deref(), &[&s.name, email])
            })
            .cloned()
            .collect();
        records.sort_by_key(|s| std::cmp::Reverse((s.created_at, s.id)));
        Ok(page_of(records.into_iter().map(Supplier::restore).collect(), page))
    }

    async fn update(&self, supplier: &Supplier, expected_version: i64) -> Result<(), RepoError> {
        let mut state = self.lock();
        let stored = state.suppliers.get_mut(&supplier.id).filter(|s| s.deleted_at.is_none());
        let Some(stored) = stored else { return Err(StorageError::NotFound.into()) };
        if stored.record.version != expected_version {
            return Err(StorageError::Stale.into());
        }
        stored.record = supplier.record().clone();
        Ok(())
    }

    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError> {
        let mut state = self.lock();
        if state.suppliers.get(&id).and_then(Stored::live).is_none() {
            return Err(StorageError::NotFound.into());
        }
        // Under the lock that creating a purchase order takes too: one statement in PostgreSQL.
        if state.purchase_orders.values().any(|po| po.supplier_id == id && po.status.is_open()) {
            return Err(WarehouseError::SupplierHasOpenOrders.into());
        }
        if let Some(stored) = state.suppliers.get_mut(&id) {
            stored.deleted_at = Some(now);
            stored.record.updated_at = now;
        }
        Ok(())
    }
}
