//! The contract suite of the warehouse ports (`warehouse_domain::contract`, feature `contract`)
//! against the PostgreSQL adapters: the same functions the in-memory store passes in
//! `crates/warehouse-domain/tests/memory_contract.rs`.

use tally_tests::TestApp;
use warehouse_domain::contract::{self, Ports, PurchasingPorts};
use warehouse_postgres::{
    PgInventoryRepository, PgLocationRepository, PgOrderStockRepository, PgProductRepository,
    PgPurchaseOrderRepository, PgReorderRepository, PgStockMovementRepository, PgSupplierRepository,
    PgTransferRepository,
};

#[actix_web::test]
async fn postgres_adapters_pass_the_warehouse_contract() {
    let t = TestApp::start().await;
    let pool = &t.state.pool;
    let (products, locations, inventory) = (
        PgProductRepository::new(pool.clone()),
        PgLocationRepository::new(pool.clone()),
        PgInventoryRepository::new(pool.clone()),
    );
    let (movements, order_stock) =
        (PgStockMovementRepository::new(pool.clone()), PgOrderStockRepository::new(pool.clone()));
    contract::run_all(Ports {
        products: &products,
        locations: &locations,
        inventory: &inventory,
        movements: &movements,
        order_stock: &order_stock,
    })
    .await;
    t.stop().await;
}

#[actix_web::test]
async fn postgres_adapters_pass_the_purchasing_contract() {
    let t = TestApp::start().await;
    let pool = &t.state.pool;
    let (products, locations, inventory) = (
        PgProductRepository::new(pool.clone()),
        PgLocationRepository::new(pool.clone()),
        PgInventoryRepository::new(pool.clone()),
    );
    let (movements, order_stock) =
        (PgStockMovementRepository::new(pool.clone()), PgOrderStockRepository::new(pool.clone()));
    let (suppliers, purchase_orders) =
        (PgSupplierRepository::new(pool.clone()), PgPurchaseOrderRepository::new(pool.clone()));
    let (reorder, transfers) = (PgReorderRepository::new(pool.clone()), PgTransferRepository::new(pool.clone()));
    contract::run_purchasing(PurchasingPorts {
        stock: Ports {
            products: &products,
            locations: &locations,
            inventory: &inventory,
            movements: &movements,
            order_stock: &order_stock,
        },
        suppliers: &suppliers,
        purchase_orders: &purchase_orders,
        reorder: &reorder,
        transfers: &transfers,
    })
    .await;
    t.stop().await;
}
