//! The contract suite of `OrderRepository` (`order_domain::contract`, feature `contract`) against the
//! PostgreSQL adapter: the same functions the in-memory adapter passes in
//! `crates/order-domain/tests/memory_contract.rs`.

use actix_web::test::init_service;
use api::build_app;
use infrastructure::orders::PgOrderRepository;
use order_domain::contract;
use tally_tests::{login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::commerce_support::{customer, product};

#[actix_web::test]
async fn postgres_adapter_passes_the_order_repository_contract() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    // The rows the adapter's foreign keys need: a customer and a product for the lines.
    let customer_id = customer(&t.state.pool).await;
    let product = product(&app, &admin, "CONTRACT-ORDERS").await;
    let product_id: Uuid = product["id"].as_str().and_then(|id| id.parse().ok()).expect("a product id");

    let repo = PgOrderRepository::new(t.state.pool.clone());
    contract::run_all(&repo, customer_id, product_id).await;
    t.stop().await;
}
