//! The contract suite of `OrderRepository` (`order_domain::contract`, feature `contract`) against the
//! PostgreSQL adapter: the same functions the in-memory adapter passes in
//! `crates/order-domain/tests/memory_contract.rs`.

use actix_web::test::init_service;
use api::build_app;
use api::reference_ports::ReferenceData;
use api::routes::orders::references::{CrmDirectory, WarehouseCatalog};
use order_domain::contract;
use order_postgres::{PgOrderRepository, PgReplyInbox};
use tally_tests::{login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::commerce_support::{customer, id_of, post, product};
use serde_json::json;

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
    let inbox = PgReplyInbox::new(t.state.pool.clone());
    contract::reply_inbox_takes_each_delivery_once(&repo, &inbox, customer_id, product_id).await;
    t.stop().await;
}

/// The api's answers to the order context's ports (over customer management's and the warehouse's
/// repositories and the reference data) pass the same contract as the in-memory ones.
#[actix_web::test]
async fn api_wiring_passes_the_reference_ports_contract() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let customer_id = customer(&t.state.pool).await;
    let (status, company) =
        post(&app, &admin, "/api/v1/customer-mgmt/companies", json!({"name": "Contract Company"})).await;
    assert_eq!(status, actix_web::http::StatusCode::CREATED, "{company}");
    let company_id: Uuid = id_of(&company).parse().expect("a company id");
    let product_id = |product: serde_json::Value| -> Uuid {
        product["id"].as_str().and_then(|id| id.parse().ok()).expect("a product id")
    };
    let orderable = product_id(product(&app, &admin, "CONTRACT-REF-1").await);
    let retired = product_id(product(&app, &admin, "CONTRACT-REF-2").await);
    let (status, body) =
        post(&app, &admin, &format!("/api/v1/warehouse/products/{retired}/discontinue"), json!({})).await;
    assert!(status.is_success(), "{body}");

    let directory = CrmDirectory { customers: t.state.crm.customers.clone(), companies: t.state.crm.companies.clone() };
    contract::directory_finds_live_customers_and_companies(&directory, customer_id, company_id).await;
    let catalog = WarehouseCatalog { products: t.state.commerce.products.clone() };
    contract::catalog_finds_products_with_what_a_line_copies(&catalog, orderable, retired).await;
    contract::register_knows_active_currencies(&ReferenceData::new(t.state.pool.clone())).await;
    t.stop().await;
}
