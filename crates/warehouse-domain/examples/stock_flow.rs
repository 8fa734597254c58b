//! A product's stock from creation to an order's committed units, through the warehouse's use cases
//! with the in-memory adapters: no database, no runtime.
//!
//! `cargo run -p warehouse-domain --features memory --example stock_flow`

use std::sync::Arc;

use event_contracts::orders::{OrderEventData, OrderEventLine, ORDER_CONFIRMED, ORDER_FULFILLED};
use shared_kernel::application::{block_on, FixedClock};
use shared_kernel::{CurrencyCode, PageRequest};
use time::macros::datetime;
use uuid::Uuid;
use warehouse_domain::application::{
    InventoryService, LocationService, OrderStock, ProductService, ReceiptRequest, StockOperations,
};
use warehouse_domain::memory::InMemoryWarehouse;
use warehouse_domain::{
    Address, CountryCode, InventoryRepository, LocationInput, LocationType, MovementFilter, NewInventory, ProductInput,
    RepoError, StockMovementRepository, Thresholds,
};

fn main() -> Result<(), RepoError> {
    block_on(run())
}

async fn run() -> Result<(), RepoError> {
    let store = Arc::new(InMemoryWarehouse::new());
    let clock = Arc::new(FixedClock(datetime!(2026-03-01 10:00 UTC)));
    let usd = CurrencyCode::parse("USD").expect("USD is an ISO 4217 code");
    let clerk = Uuid::from_u128(1);

    let products = ProductService::new(store.clone(), store.clone(), clock.clone());
    let locations = LocationService::new(store.clone(), store.clone(), clock.clone());
    let inventory = InventoryService::new(store.clone(), store.clone(), store.clone(), clock.clone());
    let stock = StockOperations::new(store.clone(), store.clone(), store.clone(), store.clone(), clock.clone(), usd);
    let orders = OrderStock::new(store.clone(), clock.clone());

    let product = products
        .create(ProductInput {
            sku: "WID-001".into(),
            name: "Widget".into(),
            description: None,
            category: Some("Gadgets".into()),
            brand: None,
            weight_grams: Some(250),
            length_mm: None,
            width_mm: None,
            height_mm: None,
            price: Some(1_999),
            currency: Some(usd),
            supplier_id: None,
        })
        .await?;
    println!("product   {} {} ({:?})", product.sku, product.name, product.status);

    let country = CountryCode::parse("DE").expect("DE is an ISO 3166-1 code");
    let location = locations
        .create(LocationInput {
            code: "BER-1".into(),
            name: "Berlin warehouse".into(),
            location_type: LocationType::parse("warehouse").expect("a location type"),
            address: Address {
                street: None,
                city: Some("Berlin".into()),
                state: None,
                postal_code: None,
                country: None,
            },
            country,
            capacity: Some(10_000),
        })
        .await?;
    println!("location  {} {}", location.code, location.name);

    let input = NewInventory {
        product_id: product.id,
        location_id: location.id,
        quantity_on_hand: None,
        thresholds: Thresholds { reorder_point: Some(5), ..Thresholds::default() },
    };
    let record = inventory.create(input, clerk).await?;
    let receipt = ReceiptRequest {
        quantity: 20,
        unit_cost: Some(850),
        currency: None,
        reference_type: None,
        reference_id: None,
        reason: Some("first delivery".into()),
    };
    let received = stock.receive(record.id, receipt, clerk).await?;
    println!("received  20: on hand {}", received.inventory.quantity_on_hand);

    let order_id = Uuid::from_u128(100);
    let data = OrderEventData {
        order_id,
        order_number: "ORD-2026-000001".into(),
        customer_id: Uuid::from_u128(7),
        currency: usd,
        lines: vec![OrderEventLine { line_id: Uuid::from_u128(101), product_id: product.id, quantity: 8 }],
    };
    let reserved = orders.on_order_event(ORDER_CONFIRMED, &data).await?;
    println!("confirmed {reserved:?}");
    let committed = orders.on_order_event(ORDER_FULFILLED, &data).await?;
    println!("fulfilled {committed:?}");

    let availability = store.availability(product.id).await?;
    println!(
        "available {} (on hand {}, reserved {}, committed {})",
        availability.quantity_available,
        availability.quantity_on_hand,
        availability.quantity_reserved,
        availability.quantity_committed
    );
    let filter = MovementFilter { product_id: Some(product.id), ..MovementFilter::default() };
    let page = PageRequest::new(None, None).expect("the default page");
    let ledger = StockMovementRepository::list(&*store, &filter, page).await?;
    println!("ledger ({} movements, newest first):", ledger.total);
    for movement in &ledger.items {
        println!(
            "  {:<12} {:>3}  on hand {:>2} → {:>2}  reserved {} → {}",
            movement.movement_type.as_str(),
            movement.quantity,
            movement.quantity_before,
            movement.quantity_after,
            movement.reserved_before,
            movement.reserved_after
        );
    }
    for event in store.take_events() {
        println!("event     {}", event.name);
    }
    Ok(())
}
