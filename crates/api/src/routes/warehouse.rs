//! Warehouse management: the 51 endpoints under `/warehouse` (docs/orders-and-warehouse.md) — products (16),
//! inventory (14), stock movements (7) and locations (14) — and purchasing: suppliers, purchase orders,
//! transfers between locations and reorder suggestions (docs/purchasing-and-transfers.md).
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
pub mod purchase_order_lifecycle;
pub mod purchase_orders;
pub mod purchasing_requests;
pub mod purchasing_responses;
pub mod reorder;
pub mod requests;
pub mod responses;
pub mod suppliers;
pub mod transfers;

use std::sync::Arc;

use shared_kernel::application::Clock;
use shared_kernel::{CurrencyCode, StorageError};

use actix_web::web;
use warehouse_domain::application::{
    InventoryService, LocationService, ProductService, PurchasingService, StockOperations, SupplierService,
    TransferService,
};
use warehouse_domain::purchasing::{PurchaseOrderRepository, ReorderRepository, SupplierRepository};
use warehouse_domain::transfers::TransferRepository;
use warehouse_domain::{InventoryRepository, LocationRepository, ProductRepository, RepoError, WarehouseError};

use crate::http::ApiError;
use crate::reference_ports::ReferenceData;

/// The warehouse's use cases, over the same ports the handlers read.
#[derive(Clone)]
pub struct WarehouseServices {
    pub products: ProductService,
    pub locations: LocationService,
    pub inventory: InventoryService,
    pub suppliers: SupplierService,
    pub transfers: TransferService,
    /// The purchasing ports, read directly by the lists.
    pub documents: PurchasingPorts,
    ports: (Arc<dyn ProductRepository>, Arc<dyn LocationRepository>, Arc<dyn InventoryRepository>),
    reference: Arc<ReferenceData>,
    clock: Arc<dyn Clock>,
}

/// The storage ports of purchasing and transfers.
#[derive(Clone)]
pub struct PurchasingPorts {
    pub suppliers: Arc<dyn SupplierRepository>,
    pub purchase_orders: Arc<dyn PurchaseOrderRepository>,
    pub reorder: Arc<dyn ReorderRepository>,
    pub transfers: Arc<dyn TransferRepository>,
}

impl WarehouseServices {
    pub fn new(
        products: Arc<dyn ProductRepository>,
        locations: Arc<dyn LocationRepository>,
        inventory: Arc<dyn InventoryRepository>,
        documents: PurchasingPorts,
        reference: Arc<ReferenceData>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            products: ProductService::new(products.clone(), reference.clone(), clock.clone()),
            locations: LocationService::new(locations.clone(), reference.clone(), clock.clone()),
            inventory: InventoryService::new(products.clone(), locations.clone(), inventory.clone(), clock.clone()),
            suppliers: SupplierService::new(documents.suppliers.clone(), clock.clone()),
            transfers: TransferService::new(
                products.clone(),
                locations.clone(),
                documents.transfers.clone(),
                clock.clone(),
            ),
            documents,
            ports: (products, locations, inventory),
            reference,
            clock,
        }
    }

    /// The purchase order use cases; drafts made from suggestions for a supplier without a currency
    /// are in `reporting_currency` (a setting).
    pub fn purchasing(&self, reporting_currency: CurrencyCode) -> PurchasingService {
        let (products, locations, _) = self.ports.clone();
        PurchasingService::new(
            products,
            locations,
            self.documents.suppliers.clone(),
            self.documents.purchase_orders.clone(),
            self.documents.reorder.clone(),
            self.clock.clone(),
            reporting_currency,
        )
    }

    /// Whether `code` is an active currency of the reference data (`VALIDATION_ERROR` on `currency`
    /// otherwise): the question suppliers and purchase orders leave to their caller.
    pub async fn active_currency(&self, code: &str) -> Result<CurrencyCode, ApiError> {
        let refused = || warehouse_error(&warehouse_domain::application::inactive_currency());
        let code = CurrencyCode::parse(code).map_err(|_| refused())?;
        match self.reference.currency_is_active(code).await? {
            true => Ok(code),
            false => Err(refused()),
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
    suppliers::configure(cfg);
    purchase_orders::configure(cfg);
    transfers::configure(cfg);
    reorder::configure(cfg);
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
