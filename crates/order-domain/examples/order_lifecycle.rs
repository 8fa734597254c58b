//! An order's whole life with the in-memory adapter and no database: create, add lines, confirm, fold
//! the warehouse's "reserved" reply, process, fulfil; each step printed with the events it raised.
//!
//! ```text
//! cargo run -p order-domain --features memory --example order_lifecycle
//! ```

use order_domain::memory::InMemoryOrderRepository;
use order_domain::{NewLine, NewOrder, Order, OrderChange, OrderDraft, OrderRepository, RepoError};
use shared_kernel::CurrencyCode;
use time::macros::datetime;
use time::Duration;
use uuid::Uuid;

/// Saves a change and prints the order and the events written with it.
async fn save(repo: &InMemoryOrderRepository, step: &str, change: OrderChange) -> Result<Order, RepoError> {
    repo.save(&change).await?;
    let order = repo.get(change.order.id).await?;
    report(repo, step, &order);
    Ok(order)
}

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

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let repo = InMemoryOrderRepository::new();
    let usd = CurrencyCode::parse("USD")?;
    let start = datetime!(2026-03-01 10:00 UTC);
    let at = |minutes| start + Duration::minutes(minutes);

    // Create: the repository gives the number of the year.
    let input = NewOrder {
        customer_id: Uuid::from_u128(7),
        company_id: None,
        currency: usd,
        tax: 150,
        discount: 100,
        notes: Some("leave at the door".into()),
    };
    let order = repo.create(OrderDraft::new(input, start)?).await?;
    report(&repo, "created", &order);

    // Two lines while pending.
    let widget = NewLine {
        product_id: Uuid::from_u128(42),
        quantity: 3,
        unit_price: 250,
        currency: usd,
        description: Some("Widget".into()),
        sku: Some("W-1".into()),
    };
    let gadget = NewLine {
        product_id: Uuid::from_u128(43),
        quantity: 1,
        description: Some("Gadget".into()),
        sku: Some("G-1".into()),
        unit_price: 1_999,
        ..widget.clone()
    };
    let order = save(&repo, "line", order.add_line(widget, at(1))?).await?;
    let order = save(&repo, "line", order.add_line(gadget, at(2))?).await?;

    // Confirm: `order.confirmed` asks the warehouse to reserve.
    let order = save(&repo, "confirmed", order.confirm(at(3))?).await?;

    // The warehouse replied `warehouse.stock_reserved`; a redelivery would change nothing.
    let change = order.mark_reserved(at(4)).ok_or("the order awaits a reply")?;
    let order = save(&repo, "reserved", change).await?;
    assert!(order.mark_reserved(at(5)).is_none(), "a duplicate reply is nothing to save");

    let processing = save(&repo, "processing", order.process(at(6))?).await?;
    let order = save(&repo, "fulfilled", processing.fulfill(at(7))?).await?;

    // A writer that read the order before fulfilment loses: `Stale`, then its reload refuses.
    let stale = repo.save(&processing.cancel(at(8))?).await;
    println!("{:<10} cancelling the version read before fulfilment: {stale:?}", "race");
    let current = repo.get(order.id).await?;
    println!(
        "{:<10} after reloading, cancel says: {}",
        "",
        current.cancel(at(8)).map(|_| ()).expect_err("fulfilled is final")
    );
    Ok(())
}
