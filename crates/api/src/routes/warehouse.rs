//! Warehouse management: the 51 endpoints under `/warehouse` (docs/orders-and-warehouse.md) — products (16),
//! inventory (14), stock movements (7) and locations (14).
//!
//! Handlers parse, call a use case of `warehouse_domain::application` (through
//! [`WarehouseServices`]) and map; reads without a rule call the ports directly.

pub mod inventory;
pub mod inventory_ops;
pub mod location_queries;
pub mod locations;
pub mod movements;
pub mod product_queries;
pub mod products;
pub mod requests;
pub mod responses;

use std::sync::Arc;

use shared_kernel::application::Clock;
use shared_kernel::{CurrencyCode, StorageError};

use actix_web::web;
use warehouse_domain::application::{InventoryService, LocationService, ProductService, StockOperations};
use warehouse_domain::{InventoryRepository, LocationRepository, ProductRepository, RepoError, WarehouseError};

use crate::http::ApiError;
use crate::reference_ports::ReferenceData;

/// The warehouse's use cases, over the same ports the handlers read.
#[derive(Clone)]
pub struct WarehouseServices {
    pub products: ProductService,
    pub locations: LocationService,
    pub inventory: InventoryService,
    ports: (Arc<dyn ProductRepository>, Arc<dyn LocationRepository>, Arc<dyn InventoryRepository>),
    reference: Arc<ReferenceData>,
    clock: Arc<dyn Clock>,
}

impl WarehouseServices {
    pub fn new(
        products: Arc<dyn ProductRepository>,
        locations: Arc<dyn LocationRepository>,
        inventory: Arc<dyn InventoryRepository>,
        reference: Arc<ReferenceData>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            products: ProductService::new(products.clone(), reference.clone(), clock.clone()),
            locations: LocationService::new(locations.clone(), reference.clone(), clock.clone()),
            inventory: InventoryService::new(products.clone(), locations.clone(), inventory.clone(), clock.clone()),
            ports: (products, locations, inventory),
            reference,
            clock,
        }
    }

    /// The quantity operations, with costs defaulting to `reporting_currency` (a setting).
    pub fn stock(&self, reporting_currency: CurrencyCode) -> StockOperations {
        let (products, locations, inventory) = self.ports.clone();
        StockOperations::new(
            products,
            locations,
            inventory,
            self.reference.clone(),
            self.clock.clone(),
            reporting_currency,
        )
    }
}

/// Fixed segments before `{id}` in each group, so they are never read as ids.
pub fn configure(cfg: &mut web::ServiceConfig) {
    products::configure(cfg);
    inventory::configure(cfg);
    movements::configure(cfg);
    locations::configure(cfg);
}

/// A domain refusal, with `details` naming its field.
pub(crate) fn warehouse_error(error: &WarehouseError) -> ApiError {
    ApiError::from_domain_field(error, error.field())
}

/// A storage failure; `entity` names what was missing in a 404.
pub(crate) fn repo_error(entity: &str, error: RepoError) -> ApiError {
    match error {
        RepoError::Storage(StorageError::NotFound) => ApiError::not_found(format!("{entity} not found")),
        other => other.into(),
    }
}
