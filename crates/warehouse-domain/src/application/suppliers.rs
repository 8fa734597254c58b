//! Suppliers: create, read, update, delete.
//!
//! The supplier's currency is checked against the reference data and its phone normalised to E.164
//! by the caller, which passes them in the [`NewSupplier`] / [`SupplierChanges`].
//!
//! **Deleting while purchase orders are open.** `SUPPLIER_HAS_OPEN_ORDERS` is not decided here on a
//! read: a purchase order created between that read and the delete would slip past it. The port's
//! [`SupplierRepository::delete`] answers it in the delete's own condition (`UPDATE suppliers SET
//! deleted_at … WHERE id = $1 AND deleted_at IS NULL AND NOT EXISTS (SELECT 1 FROM purchase_orders
//! WHERE supplier_id = $1 AND status IN ('draft', 'ordered', 'partially_received'))`), and creating a
//! purchase order locks the supplier row `FOR SHARE` and needs it live
//! ([`crate::PurchaseOrderRepository::create`]): whichever commits first wins, and the other sees
//! it, so no open purchase order ever names a deleted supplier.

use std::sync::Arc;

use shared_kernel::application::{until_settled, Clock};
use uuid::Uuid;

use super::{missing, refused, saved};
use crate::purchasing::{NewSupplier, Supplier, SupplierChanges, SupplierRepository};
use crate::repository::RepoError;

pub(crate) const SUPPLIER: &str = "supplier";

/// The supplier use cases.
#[derive(Clone)]
pub struct SupplierService {
    suppliers: Arc<dyn SupplierRepository>,
    clock: Arc<dyn Clock>,
}

impl SupplierService {
    /// The service over its port and clock.
    pub fn new(suppliers: Arc<dyn SupplierRepository>, clock: Arc<dyn Clock>) -> Self {
        Self { suppliers, clock }
    }

    /// The live supplier; `NOT_FOUND` ("supplier not found") otherwise.
    #[tracing::instrument(skip_all, fields(supplier_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<Supplier, RepoError> {
        self.suppliers.get(id).await.map_err(missing(SUPPLIER))
    }

    /// A new supplier, active unless told otherwise: `VALIDATION_ERROR` naming the field, or
    /// `INVALID_EMAIL`.
    #[tracing::instrument(skip_all)]
    pub async fn create(&self, input: NewSupplier) -> Result<Supplier, RepoError> {
        let supplier = Supplier::create(input, self.clock.now()).map_err(refused)?;
        self.suppliers.create(&supplier).await.map_err(missing(SUPPLIER))?;
        Ok(supplier)
    }

    /// Applies `changes` (any subset of the fields) over the version read; a concurrent change is
    /// read again and the changes applied to it.
    #[tracing::instrument(skip_all, fields(supplier_id = %id))]
    pub async fn update(&self, id: Uuid, changes: SupplierChanges) -> Result<Supplier, RepoError> {
        let changes = &changes;
        until_settled(|| async move {
            let supplier = self.get(id).await?;
            let updated = supplier.update(changes.clone(), self.clock.now()).map_err(refused)?;
            saved(self.suppliers.update(&updated, supplier.version).await, updated, SUPPLIER)
        })
        .await
    }

    /// Soft delete; `SUPPLIER_HAS_OPEN_ORDERS` while a purchase order of it is `draft`, `ordered` or
    /// `partially_received` (decided by the port in one statement, see the module docs).
    #[tracing::instrument(skip_all, fields(supplier_id = %id))]
    pub async fn delete(&self, id: Uuid) -> Result<(), RepoError> {
        self.suppliers.delete(id, self.clock.now()).await.map_err(missing(SUPPLIER))
    }
}
