//! Stock that is bought and moved, through the warehouse's use cases with the in-memory adapters: a
//! supplier, a purchase order submitted, partly received and closed short, a transfer shipped and
//! received, and the availability (incoming stock included) and events along the way: the receipt
//! lifts Berlin above its reorder point (`warehouse.stock_replenished`), the transfer takes it below
//! again (`warehouse.stock_low`).
//!
//! `cargo run -p warehouse-domain --features memory --example purchasing`

use std::sync::Arc;

use shared_kernel::application::{block_on, FixedClock};
use shared_kernel::CurrencyCode;
use time::macros::datetime;
use uuid::Uuid;
use warehouse_domain::application::{
    InventoryService, LocationService, ProductService, PurchaseLineRequest, PurchaseOrderRequest, PurchasingService,
    SupplierService, TransferService,
};
use warehouse_domain::memory::InMemoryWarehouse;
use warehouse_domain::purchasing::{NewSupplier, ReceiveInput, ReceiveLine};
use warehouse_domain::transfers::{NewTransfer, NewTransferLine};
use warehouse_domain::{
    Address, CountryCode, InventoryRepository, LocationInput, LocationType, NewInventory, ProductInput, RepoError,
    Thresholds,
};

fn main() -> Result<(), RepoError> {
    block_on(run())
}

fn location(code: &str, name: &str) -> LocationInput {
    LocationInput {
        code: code.into(),
        name: name.into(),
        location_type: LocationType::Warehouse,
        address: Address::default(),
        country: CountryCode::parse("DE").expect("DE is an ISO 3166-1 code"),
        capacity: None,
    }
}

async fn show(store: &InMemoryWarehouse, product_id: Uuid, when: &str) -> Result<(), RepoError> {
    let a = store.availability(product_id).await?;
    println!(
        "{when:<22} on hand {:>2}  available {:>2}  incoming {:>2}",
        a.quantity_on_hand, a.quantity_available, a.quantity_incoming
    );
    Ok(())
}

async fn run() -> Result<(), RepoError> {
    let store = Arc::new(InMemoryWarehouse::new());
    let s = &store;
    let clock = Arc::new(FixedClock(datetime!(2026-03-01 10:00 UTC)));
    let eur = CurrencyCode::parse("EUR").expect("EUR is an ISO 4217 code");
    let buyer = Uuid::from_u128(1);

    let products = ProductService::new(s.clone(), s.clone(), clock.clone());
    let locations = LocationService::new(s.clone(), s.clone(), clock.clone());
    let inventory = InventoryService::new(s.clone(), s.clone(), s.clone(), clock.clone());
    let suppliers = SupplierService::new(s.clone(), clock.clone());
    let purchasing = PurchasingService::new(s.clone(), s.clone(), s.clone(), s.clone(), s.clone(), clock.clone(), eur);
    let transfers = TransferService::new(s.clone(), s.clone(), s.clone(), clock.clone());

    let input = ProductInput { sku: "WID-001".into(), name: "Widget".into(), ..ProductInput::default() };
    let widget = products.create(input).await?;
    let berlin = locations.create(location("BER-1", "Berlin warehouse")).await?;
    let hamburg = locations.create(location("HAM-1", "Hamburg store")).await?;
    let thresholds = Thresholds { reorder_point: Some(5), ..Thresholds::default() };
    let input = NewInventory { product_id: widget.id, location_id: berlin.id, quantity_on_hand: Some(3), thresholds };
    inventory.create(input, buyer).await?;
    let supplier = NewSupplier {
        name: "Acme Components".into(),
        email: Some("orders@acme.example".into()),
        currency: Some(eur),
        lead_time_days: Some(10),
        ..NewSupplier::default()
    };
    let acme = suppliers.create(supplier).await?;
    println!("supplier  {} (lead time {} days)", acme.name, acme.lead_time_days.unwrap_or(0));
    show(s, widget.id, "start").await?;

    let request = PurchaseOrderRequest {
        supplier_id: acme.id,
        location_id: berlin.id,
        currency: eur,
        expected_at: None,
        notes: Some("first order".into()),
        lines: vec![PurchaseLineRequest { product_id: widget.id, quantity: 20, unit_cost: 450 }],
    };
    let po = purchasing.create(request, buyer).await?;
    println!(
        "created   {} {} ({} × {} = {} cents)",
        po.po_number,
        po.status,
        po.lines[0].sku.as_deref().unwrap_or("?"),
        po.lines[0].quantity_ordered,
        po.subtotal
    );
    let po = purchasing.submit(po.id).await?;
    println!("submitted {} {}", po.po_number, po.status);
    show(s, widget.id, "ordered").await?;

    let receipt = ReceiveInput {
        lines: vec![ReceiveLine { line_id: po.lines[0].id, quantity: 12 }],
        reason: Some("first pallet".into()),
    };
    let po = purchasing.receive(po.id, receipt, buyer).await?;
    println!("received  12 of 20: {}", po.status);
    show(s, widget.id, "partly received").await?;
    let too_many = ReceiveInput { lines: vec![ReceiveLine { line_id: po.lines[0].id, quantity: 9 }], reason: None };
    if let Err(refused) = purchasing.receive(po.id, too_many, buyer).await {
        println!("refused   9 more: {refused}");
    }
    let po = purchasing.close(po.id).await?;
    println!("closed    {} short: {}", po.po_number, po.status);
    show(s, widget.id, "closed short").await?;

    let move_eleven = NewTransfer {
        from_location_id: berlin.id,
        to_location_id: hamburg.id,
        lines: vec![NewTransferLine { product_id: widget.id, quantity: 11 }],
        notes: None,
    };
    let transfer = transfers.create(move_eleven, buyer).await?;
    let transfer = transfers.ship(transfer.id, buyer).await?;
    println!("shipped   {} {}", transfer.transfer_number, transfer.status);
    show(s, widget.id, "in transit").await?;
    let transfer = transfers.receive(transfer.id, buyer).await?;
    println!("received  {} {}", transfer.transfer_number, transfer.status);
    show(s, widget.id, "moved").await?;
    for (at, name) in [(berlin.id, "Berlin"), (hamburg.id, "Hamburg")] {
        if let Some(record) = store.find(widget.id, at).await? {
            println!("  {name:<8} on hand {:>2}", record.quantity_on_hand);
        }
    }

    for event in store.take_events() {
        println!("event     {}", event.name);
    }
    Ok(())
}
