//! Inventory records: create (with optional initial stock), set thresholds, delete.

use std::sync::Arc;

use shared_kernel::application::Clock;
use uuid::Uuid;

use super::{missing, refused};
use crate::inventory::{Inventory, NewInventory};
use crate::operations::{Stamp, WithIncoming};
use crate::quantities::Thresholds;
use crate::repository::{InventoryRepository, LocationRepository, ProductRepository, RepoError};

pub(crate) const INVENTORY: &str = "inventory record";

/// The use cases of inventory records; the quantity operations are [`super::StockOperations`].
#[derive(Clone)]
pub struct InventoryService {
    products: Arc<dyn ProductRepository>,
    locations: Arc<dyn LocationRepository>,
    inventory: Arc<dyn InventoryRepository>,
    clock: Arc<dyn Clock>,
}

impl InventoryService {
    /// The service over its ports and clock.
    pub fn new(
        products: Arc<dyn ProductRepository>,
        locations: Arc<dyn LocationRepository>,
        inventory: Arc<dyn InventoryRepository>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self { products, locations, inventory, clock }
    }

    /// The live record; `NOT_FOUND` ("inventory record not found") otherwise.
    #[tracing::instrument(skip_all, fields(inventory_id = %id))]
    pub async fn get(&self, id: Uuid) -> Result<Inventory, RepoError> {
        self.inventory.get(id).await.map_err(missing(INVENTORY))
    }

    /// A new record of a product at a location, by user `by`, its initial stock recorded as a
    /// Receipt. Checked in this order: the input (`INVALID_QUANTITY`, thresholds), the product,
    /// the location (`NOT_FOUND` each), then one record per product and location (`ALREADY_EXISTS`).
    #[tracing::instrument(skip_all, fields(product_id = %input.product_id, location_id = %input.location_id))]
    pub async fn create(&self, input: NewInventory, by: Uuid) -> Result<WithIncoming<Inventory>, RepoError> {
        let stamp = Stamp { at: self.clock.now(), by: Some(by) };
        let (record, receipt) = Inventory::create(input, stamp).map_err(refused)?;
        self.products.get(input.product_id).await.map_err(missing("product"))?;
        self.locations.get(input.location_id).await.map_err(missing("location"))?;
        let incoming = self.inventory.create(&record, receipt.as_ref()).await.map_err(missing(INVENTORY))?;
        Ok(WithIncoming::new(record, incoming))
    }

    /// Replaces the thresholds (never the quantities) and answers the record as it now is, with
    /// quantities changed meanwhile (and its incoming stock), as the write left it.
    #[tracing::instrument(skip_all, fields(inventory_id = %id))]
    pub async fn set_thresholds(&self, id: Uuid, thresholds: Thresholds) -> Result<WithIncoming<Inventory>, RepoError> {
        let record = self.get(id).await?;
        let updated = record.set_thresholds(thresholds, self.clock.now()).map_err(refused)?;
        self.inventory.update_thresholds(&updated).await.map_err(missing(INVENTORY))
    }

    /// Soft delete; `STOCK_RESERVED` while the record holds reservations.
    #[tracing::instrument(skip_all, fields(inventory_id = %id))]
    pub async fn delete(&self, id: Uuid) -> Result<(), RepoError> {
        self.inventory.delete(id, self.clock.now()).await.map_err(missing(INVENTORY))
    }
}
