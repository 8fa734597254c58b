//! What the purchasing and transfer use-case tests share: one in-memory store, the services over it,
//! and products, locations, suppliers and stock made through the use cases.

#![allow(dead_code, reason = "each test binary uses part of it")]

use std::sync::Arc;

use shared_kernel::application::FixedClock;
use shared_kernel::error::Classified;
use shared_kernel::CurrencyCode;
use time::macros::datetime;
use uuid::Uuid;
use warehouse_domain::application::{
    InventoryService, LocationService, ProductService, PurchasingService, StockOperations, SupplierService,
    TransferService,
};
use warehouse_domain::memory::InMemoryWarehouse;
use warehouse_domain::purchasing::NewSupplier;
use warehouse_domain::{
    Address, CountryCode, LocationInput, LocationType, NewInventory, ProductInput, RepoError, Thresholds,
};

pub const USER: Uuid = Uuid::from_u128(1);

pub fn clock() -> Arc<FixedClock> {
    Arc::new(FixedClock(datetime!(2026-03-01 10:00 UTC)))
}

pub fn usd() -> CurrencyCode {
    CurrencyCode::parse("USD").expect("USD")
}

pub fn code(error: RepoError) -> &'static str {
    error.code()
}

/// The names of the events the store wrote since the last call, taken out.
pub fn event_names(store: &InMemoryWarehouse) -> Vec<String> {
    store.take_events().into_iter().map(|e| e.name).collect()
}

/// The store and every service over it.
pub struct World {
    pub store: Arc<InMemoryWarehouse>,
    pub products: ProductService,
    pub locations: LocationService,
    pub inventory: InventoryService,
    pub stock: StockOperations,
    pub suppliers: SupplierService,
    pub purchasing: PurchasingService,
    pub transfers: TransferService,
}

impl World {
    pub fn new() -> Self {
        Self::over(Arc::new(InMemoryWarehouse::new()))
    }

    pub fn over(store: Arc<InMemoryWarehouse>) -> Self {
        let s = &store;
        Self {
            products: ProductService::new(s.clone(), s.clone(), clock()),
            locations: LocationService::new(s.clone(), s.clone(), clock()),
            inventory: InventoryService::new(s.clone(), s.clone(), s.clone(), clock()),
            stock: StockOperations::new(s.clone(), s.clone(), s.clone(), s.clone(), clock(), usd()),
            suppliers: SupplierService::new(s.clone(), clock()),
            purchasing: PurchasingService::new(s.clone(), s.clone(), s.clone(), s.clone(), s.clone(), clock(), usd()),
            transfers: TransferService::new(s.clone(), s.clone(), s.clone(), clock()),
            store,
        }
    }

    pub async fn product(&self, sku: &str) -> Uuid {
        let input = ProductInput { sku: sku.into(), name: format!("Product {sku}"), ..ProductInput::default() };
        self.products.create(input).await.expect("product").id
    }

    pub async fn location(&self, code: &str) -> Uuid {
        let input = LocationInput {
            code: code.into(),
            name: format!("Location {code}"),
            location_type: LocationType::Warehouse,
            address: Address::default(),
            country: CountryCode::parse("DE").expect("DE"),
            capacity: None,
        };
        self.locations.create(input).await.expect("location").id
    }

    pub async fn supplier(&self, name: &str) -> Uuid {
        let input =
            NewSupplier { name: name.into(), currency: Some(usd()), lead_time_days: Some(7), ..NewSupplier::default() };
        self.suppliers.create(input).await.expect("supplier").id
    }

    /// A record of `product` at `location` with `on_hand` units and this reorder point.
    pub async fn record(&self, product: Uuid, location: Uuid, on_hand: i64, reorder_point: Option<i64>) -> Uuid {
        let input = NewInventory {
            product_id: product,
            location_id: location,
            quantity_on_hand: Some(on_hand),
            thresholds: Thresholds { reorder_point, ..Thresholds::default() },
        };
        self.inventory.create(input, USER).await.expect("record").id
    }

    /// (on hand, reserved) of `product` at `location`, (0, 0) without a record.
    pub async fn stock_at(&self, product: Uuid, location: Uuid) -> (i64, i64) {
        use warehouse_domain::InventoryRepository;
        match self.store.find(product, location).await.expect("read") {
            Some(r) => (r.quantity_on_hand, r.quantity_reserved),
            None => (0, 0),
        }
    }
}
