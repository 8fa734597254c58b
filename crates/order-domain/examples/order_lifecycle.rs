//! An order's whole life through the order context's use cases (`OrderService`), with the
//! in-memory adapters and no database: create, add lines, confirm, fold the warehouse's "reserved"
//! reply, process, fulfil; each step printed with the events it raised. Then a refusal and a race.
//!
//! ```text
//! cargo run -p order-domain --features memory --example order_lifecycle
//! ```

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use event_contracts::warehouse::{StockReserved, WarehouseReply};
use order_domain::application::{AddLine, CatalogProduct, CreateOrder, OrderService};
use order_domain::memory::{
    InMemoryCurrencyRegister, InMemoryCustomerDirectory, InMemoryOrderRepository, InMemoryProductCatalog,
};
use order_domain::{Order, OrderRepository};
use shared_kernel::application::{block_on, Clock};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use uuid::Uuid;

/// A clock one minute further on at every reading, so each step has its own time.
struct Ticking(AtomicI64);

impl Clock for Ticking {
    fn now(&self) -> OffsetDateTime {
        datetime!(2026-03-01 10:00 UTC) + Duration::minutes(self.0.fetch_add(1, Ordering::Relaxed))
    }
}

/// Prints the order and the events written since the last step.
fn report(repo: &InMemoryOrderRepository, step: &str, order: &Order) {
    println!(
        "{step:<10} {} status={} reservation={} lines={} subtotal={} total={} version={}",
        order.order_number,
        order.status.as_str(),
        order.reservation_status.as_str(),
        order.lines.len(),
        order.subtotal,
        order.total,
        order.version,
    );
    for event in repo.take_events() {
        println!("{:<10}   event {} at {} data={}", "", event.name, event.occurred_at, event.data);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (customer, widget, gadget) = (Uuid::from_u128(7), Uuid::from_u128(42), Uuid::from_u128(43));
    let repo = Arc::new(InMemoryOrderRepository::new());
    let catalog = InMemoryProductCatalog::new()
        .with(CatalogProduct { id: widget, name: "Widget".into(), sku: "W-1".into(), orderable: true })
        .with(CatalogProduct { id: gadget, name: "Gadget".into(), sku: "G-1".into(), orderable: true });
    let service = OrderService::new(
        repo.clone(),
        Arc::new(InMemoryCustomerDirectory::new().with_customer(customer)),
        Arc::new(catalog),
        Arc::new(InMemoryCurrencyRegister::with_active(&["USD", "EUR"])),
        Arc::new(Ticking(AtomicI64::new(0))),
    );

    block_on(async {
        // Create: the repository gives the number of the year.
        let order = service
            .create(CreateOrder {
                customer_id: customer,
                company_id: None,
                currency: "USD".into(),
                tax: 150,
                discount: 100,
                notes: Some("leave at the door".into()),
                items: None,
            })
            .await?;
        report(&repo, "created", &order);

        // Two lines while pending; the catalog gives each its name and SKU.
        let order = service
            .add_line(order.id, AddLine { product_id: widget, quantity: 3, unit_price: 250, currency: "USD".into() })
            .await?;
        report(&repo, "line", &order);
        let order = service
            .add_line(order.id, AddLine { product_id: gadget, quantity: 1, unit_price: 1_999, currency: "USD".into() })
            .await?;
        report(&repo, "line", &order);

        // Confirm: `order.confirmed` asks the warehouse to reserve.
        let order = service.confirm(order.id).await?;
        report(&repo, "confirmed", &order);

        // The warehouse replied `warehouse.stock_reserved`; a redelivery changes nothing.
        let reply = WarehouseReply::Reserved(StockReserved { order_id: order.id, allocations: Vec::new() });
        let order = service.fold_reply(&reply).await?.ok_or("the order awaited a reply")?;
        report(&repo, "reserved", &order);
        assert!(service.fold_reply(&reply).await?.is_none(), "a duplicate reply is nothing to save");

        let processing = service.process(order.id).await?;
        report(&repo, "processing", &processing);
        let order = service.fulfill(order.id).await?;
        report(&repo, "fulfilled", &order);

        // Refusals are the use case's errors, with their wire codes.
        let refused = service.cancel(order.id, Some("too late")).await.expect_err("fulfilled is final");
        println!("{:<10} cancel: {refused} ({})", "refused", shared_kernel::error::Classified::code(&refused));

        // A writer that read the order before fulfilment loses the compare-and-set (`Stale`); a use
        // case would read again and decide again, as the refusal above shows.
        let stale = repo.save(&processing.cancel(datetime!(2026-03-01 11:00 UTC))?).await;
        println!("{:<10} saving a cancel of the version read before fulfilment: {stale:?}", "race");
        Ok(())
    })
}
