//! Every use case with the in-memory adapters: the happy path, each refusal in the order the
//! contract checks them, and lost races decided again.

use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use event_contracts::warehouse::{ReservationFailed, StockReserved, WarehouseReply};
use shared_kernel::application::{block_on, FixedClock};
use shared_kernel::error::Classified;
use shared_kernel::{CurrencyCode, Page, PageRequest, StorageError};
use time::macros::datetime;
use uuid::Uuid;

use super::*;
use crate::change::{OrderChange, OrderDeletion};
use crate::memory::{
    InMemoryCurrencyRegister, InMemoryCustomerDirectory, InMemoryOrderRepository, InMemoryProductCatalog,
};
use crate::number::OrderNumber;
use crate::order::{Order, OrderDraft};
use crate::repository::{OrderFilter, OrderRepository};
use crate::status::{OrderStatus, ReservationStatus};

const CUSTOMER: Uuid = Uuid::from_u128(7);
const COMPANY: Uuid = Uuid::from_u128(8);
const WIDGET: Uuid = Uuid::from_u128(42);
const GADGET: Uuid = Uuid::from_u128(43);
const RETIRED: Uuid = Uuid::from_u128(44);

fn product(id: Uuid, name: &str, orderable: bool) -> CatalogProduct {
    CatalogProduct { id, name: name.into(), sku: format!("{name}-SKU"), orderable }
}

/// The service over fresh in-memory adapters (customer 7, company 8, products 42 and 43
/// orderable, 44 discontinued, USD and EUR active), and its repository.
fn service_over(orders: Arc<dyn OrderRepository>) -> OrderService {
    OrderService::new(
        orders,
        Arc::new(InMemoryCustomerDirectory::new().with_customer(CUSTOMER).with_company(COMPANY)),
        Arc::new(
            InMemoryProductCatalog::new()
                .with(product(WIDGET, "Widget", true))
                .with(product(GADGET, "Gadget", true))
                .with(product(RETIRED, "Retired", false)),
        ),
        Arc::new(InMemoryCurrencyRegister::with_active(&["USD", "EUR"])),
        Arc::new(FixedClock(datetime!(2026-03-01 10:00 UTC))),
    )
}

fn service() -> (OrderService, Arc<InMemoryOrderRepository>) {
    let repo = Arc::new(InMemoryOrderRepository::new());
    (service_over(repo.clone()), repo)
}

fn create(items: Option<Vec<OrderItem>>) -> CreateOrder {
    CreateOrder {
        customer_id: CUSTOMER,
        company_id: None,
        currency: "USD".into(),
        tax: 100,
        discount: 0,
        notes: None,
        items,
    }
}

fn item(product_id: Uuid, quantity: i64, unit_price: i64) -> OrderItem {
    OrderItem { product_id, quantity, unit_price }
}

fn add(product_id: Uuid, quantity: i64, unit_price: i64, currency: &str) -> AddLine {
    AddLine { product_id, quantity, unit_price, currency: currency.into() }
}

fn code<T: std::fmt::Debug>(outcome: Result<T, OrderUseCaseError>) -> (&'static str, Option<String>) {
    let error = outcome.expect_err("refused");
    (error.code(), error.field().map(str::to_owned))
}

/// A pending order with one widget line (2 × 500).
fn pending_with_line(service: &OrderService) -> Order {
    block_on(service.create(create(Some(vec![item(WIDGET, 2, 500)])))).expect("created")
}

#[test]
fn create_makes_a_pending_order_and_its_event() {
    let (service, repo) = service();
    let order = block_on(service.create(CreateOrder { company_id: Some(COMPANY), ..create(None) })).expect("created");
    assert_eq!((order.order_number.as_str(), order.status), ("ORD-2026-000001", OrderStatus::Pending));
    assert_eq!(
        (order.total, order.company_id, order.created_at),
        (100, Some(COMPANY), datetime!(2026-03-01 10:00 UTC))
    );
    assert_eq!(repo.events()[0].name, "order.created");
    assert_eq!(block_on(repo.get(order.id)).expect("stored").id, order.id);
}

#[test]
fn create_with_items_copies_the_products() {
    let (service, _) = service();
    let order =
        block_on(service.create(create(Some(vec![item(WIDGET, 2, 500), item(GADGET, 1, 250)])))).expect("created");
    let copied: Vec<(Option<&str>, Option<&str>)> =
        order.lines.iter().map(|l| (l.description.as_deref(), l.sku.as_deref())).collect();
    assert!(copied.contains(&(Some("Widget"), Some("Widget-SKU"))));
    assert!(copied.contains(&(Some("Gadget"), Some("Gadget-SKU"))));
    assert_eq!((order.subtotal, order.total), (1250, 1350));
}

#[test]
fn create_refusals_in_the_contracts_order() {
    let (service, repo) = service();
    let refused = |command: CreateOrder| code(block_on(service.create(command)));
    let field = |f: &str| Some(f.to_owned());
    let stranger = Uuid::from_u128(99);
    // The currency first, even with every other problem present.
    let everything_wrong = CreateOrder {
        customer_id: stranger,
        currency: "XXX".into(),
        tax: -1,
        items: Some(vec![item(stranger, 0, 1)]),
        ..create(None)
    };
    assert_eq!(refused(everything_wrong.clone()), ("VALIDATION_ERROR", field("currency")));
    assert_eq!(
        refused(CreateOrder { currency: "dollars".into(), ..create(None) }),
        ("VALIDATION_ERROR", field("currency"))
    );
    // Then the header's own rules.
    let bad_tax = CreateOrder { currency: "USD".into(), ..everything_wrong };
    assert_eq!(refused(bad_tax.clone()), ("VALIDATION_ERROR", field("tax")));
    // Then the items: their count, each quantity and price, then their products.
    let too_many = CreateOrder { items: Some(vec![item(WIDGET, 1, 1); MAX_ORDER_ITEMS + 1]), ..create(None) };
    assert_eq!(refused(too_many), ("VALIDATION_ERROR", field("items")));
    let zero = CreateOrder { tax: 0, ..bad_tax };
    assert_eq!(refused(zero), ("INVALID_QUANTITY", field("quantity")));
    let negative_price = create(Some(vec![item(stranger, 1, -1)]));
    assert_eq!(refused(negative_price), ("INVALID_PRICE", field("unit_price")));
    let missing = CreateOrder { customer_id: stranger, ..create(Some(vec![item(WIDGET, 1, 1), item(stranger, 1, 1)])) };
    assert_eq!(refused(missing), ("NOT_FOUND", field("items[1].product_id")));
    let retired = create(Some(vec![item(RETIRED, 1, 1)]));
    assert_eq!(refused(retired), ("VALIDATION_ERROR", field("items[0].product_id")));
    // Only then the customer, and last the company.
    let nobody = CreateOrder { customer_id: stranger, company_id: Some(stranger), ..create(None) };
    assert_eq!(refused(nobody), ("CUSTOMER_NOT_FOUND", None));
    assert_eq!(refused(CreateOrder { company_id: Some(stranger), ..create(None) }), ("NOT_FOUND", None));
    assert!(repo.events().is_empty(), "nothing refused was stored");
}

#[test]
fn status_moves_through_the_whole_life() {
    let (service, repo) = service();
    let order = pending_with_line(&service);
    let confirmed = block_on(service.confirm(order.id)).expect("confirmed");
    assert_eq!((confirmed.status, confirmed.reservation_status), (OrderStatus::Confirmed, ReservationStatus::Pending));
    assert_eq!(confirmed.confirmed_at, Some(datetime!(2026-03-01 10:00 UTC)));
    let reply = WarehouseReply::Reserved(StockReserved { order_id: order.id, allocations: Vec::new() });
    let reserved = block_on(service.fold_reply(&reply)).expect("folded").expect("a change");
    assert_eq!(reserved.reservation_status, ReservationStatus::Reserved);
    assert_eq!(block_on(service.process(order.id)).expect("processing").status, OrderStatus::Processing);
    let fulfilled = block_on(service.fulfill(order.id)).expect("fulfilled");
    assert_eq!((fulfilled.status, fulfilled.version), (OrderStatus::Fulfilled, 5));
    let names: Vec<String> = repo.events().into_iter().map(|e| e.name).collect();
    assert_eq!(names, ["order.created", "order.confirmed", "order.fulfilled"]);
}

#[test]
fn status_move_refusals() {
    let (service, _) = service();
    let missing = Uuid::from_u128(1);
    for outcome in [
        block_on(service.confirm(missing)),
        block_on(service.process(missing)),
        block_on(service.fulfill(missing)),
        block_on(service.cancel(missing, None)),
    ] {
        assert_eq!(code(outcome), ("ORDER_NOT_FOUND", None));
    }
    assert_eq!(code(block_on(service.delete(missing))), ("ORDER_NOT_FOUND", None));
    let empty = block_on(service.create(create(None))).expect("created");
    assert_eq!(code(block_on(service.confirm(empty.id))), ("ORDER_EMPTY", None));
    assert_eq!(code(block_on(service.process(empty.id))), ("INVALID_STATUS_TRANSITION", None));
    let order = pending_with_line(&service);
    block_on(service.confirm(order.id)).expect("confirmed");
    block_on(service.process(order.id)).expect("processing");
    assert_eq!(code(block_on(service.fulfill(order.id))), ("STOCK_NOT_RESERVED", None));
    assert_eq!(code(block_on(service.delete(order.id))), ("INVALID_STATUS_TRANSITION", None));
    block_on(service.cancel(order.id, Some(" changed my mind "))).expect("cancelled");
    assert_eq!(code(block_on(service.cancel(order.id, None))), ("ORDER_ALREADY_CANCELLED", None));
}

#[test]
fn delete_is_soft_and_only_for_pending_or_cancelled() {
    let (service, repo) = service();
    let order = pending_with_line(&service);
    block_on(service.delete(order.id)).expect("deleted");
    assert_eq!(block_on(repo.get(order.id)).map(|o| o.id), Err(StorageError::NotFound));
    assert_eq!(code(block_on(service.delete(order.id))), ("ORDER_NOT_FOUND", None));
    let cancelled = pending_with_line(&service);
    block_on(service.cancel(cancelled.id, None)).expect("cancelled");
    block_on(service.delete(cancelled.id)).expect("a cancelled order may go");
}

#[test]
fn lines_are_added_changed_and_removed() {
    let (service, _) = service();
    let order = block_on(service.create(create(None))).expect("created");
    let order = block_on(service.add_line(order.id, add(GADGET, 3, 200, "usd"))).expect("added");
    let line = &order.lines[0];
    assert_eq!(
        (line.description.as_deref(), line.sku.as_deref(), order.total),
        (Some("Gadget"), Some("Gadget-SKU"), 700)
    );
    let order = block_on(service.change_line_quantity(order.id, line.id, 5)).expect("changed");
    assert_eq!(order.total, 1100);
    let order = block_on(service.remove_line(order.id, order.lines[0].id)).expect("removed");
    assert_eq!((order.lines.len(), order.total), (0, 100));
}

#[test]
fn line_refusals_in_the_contracts_order() {
    let (service, _) = service();
    let order = pending_with_line(&service);
    let (missing, stranger) = (Uuid::from_u128(1), Uuid::from_u128(99));
    let field = |f: &str| Some(f.to_owned());
    let adding = |id, line| code(block_on(service.add_line(id, line)));
    // Quantity and price before the currency, the product and the order.
    assert_eq!(adding(missing, add(stranger, 0, -1, "XXX")), ("INVALID_QUANTITY", field("quantity")));
    assert_eq!(adding(missing, add(stranger, 1, -1, "XXX")), ("INVALID_PRICE", field("unit_price")));
    assert_eq!(adding(missing, add(stranger, 1, 1, "XXX")), ("VALIDATION_ERROR", field("currency")));
    assert_eq!(adding(missing, add(stranger, 1, 1, "USD")), ("NOT_FOUND", None));
    assert_eq!(adding(missing, add(RETIRED, 1, 1, "USD")), ("VALIDATION_ERROR", field("product_id")));
    assert_eq!(adding(missing, add(WIDGET, 1, 1, "USD")), ("ORDER_NOT_FOUND", None));
    assert_eq!(adding(order.id, add(WIDGET, 1, 1, "EUR")), ("CURRENCY_MISMATCH", field("currency")));
    let line = order.lines[0].id;
    let changing = |id, line, quantity| code(block_on(service.change_line_quantity(id, line, quantity)));
    assert_eq!(changing(missing, line, 1), ("ORDER_NOT_FOUND", None));
    assert_eq!(changing(order.id, stranger, 1), ("LINE_NOT_FOUND", None));
    assert_eq!(changing(order.id, line, 0), ("INVALID_QUANTITY", field("quantity")));
    assert_eq!(code(block_on(service.remove_line(order.id, stranger))), ("LINE_NOT_FOUND", None));
    block_on(service.confirm(order.id)).expect("confirmed");
    assert_eq!(adding(order.id, add(WIDGET, 1, 1, "USD")), ("ORDER_NOT_EDITABLE", None));
    assert_eq!(changing(order.id, line, 3), ("ORDER_NOT_EDITABLE", None));
    assert_eq!(code(block_on(service.remove_line(order.id, line))), ("ORDER_NOT_EDITABLE", None));
}

#[test]
fn a_reply_that_does_not_apply_changes_nothing() {
    let (service, repo) = service();
    let order = pending_with_line(&service);
    let reserved = WarehouseReply::Reserved(StockReserved { order_id: order.id, allocations: Vec::new() });
    assert_eq!(block_on(service.fold_reply(&reserved)), Ok(None), "not confirmed: nothing awaited");
    block_on(service.confirm(order.id)).expect("confirmed");
    let failed = WarehouseReply::Failed(ReservationFailed {
        order_id: order.id,
        reason: "insufficient stock".into(),
        short_lines: Vec::new(),
    });
    let folded = block_on(service.fold_reply(&failed)).expect("folded").expect("a change");
    assert_eq!(folded.reservation_error.as_deref(), Some("insufficient stock"));
    assert_eq!(block_on(service.fold_reply(&reserved)), Ok(None), "the first answer wins");
    let gone = WarehouseReply::Reserved(StockReserved { order_id: Uuid::from_u128(1), allocations: Vec::new() });
    assert_eq!(block_on(service.fold_reply(&gone)), Ok(None), "a deleted order takes no reply");
    assert_eq!(block_on(repo.get(order.id)).expect("stored").reservation_status, ReservationStatus::Failed);
}

/// A rival's write, run on the stored order just before the use case's own write.
type Rival = Box<dyn FnOnce(&Order) -> OrderChange + Send>;

/// The in-memory repository, with one rival writer (once armed) that wins the race of the next write.
#[derive(Default)]
struct Raced {
    inner: InMemoryOrderRepository,
    rival: Mutex<Option<Rival>>,
    saves: Mutex<u32>,
}

impl Raced {
    fn arm(&self, rival: impl FnOnce(&Order) -> OrderChange + Send + 'static) {
        *self.rival.lock().expect("lock") = Some(Box::new(rival));
        *self.saves.lock().expect("lock") = 0;
    }

    async fn rival_goes_first(&self, id: Uuid) {
        let rival = self.rival.lock().expect("lock").take();
        if let Some(rival) = rival {
            let current = self.inner.get(id).await.expect("the order");
            self.inner.save(&rival(&current)).await.expect("the rival's write holds");
        }
    }
}

#[async_trait]
impl OrderRepository for Raced {
    async fn create(&self, draft: OrderDraft) -> Result<Order, StorageError> {
        self.inner.create(draft).await
    }
    async fn get(&self, id: Uuid) -> Result<Order, StorageError> {
        self.inner.get(id).await
    }
    async fn get_by_number(&self, number: &OrderNumber) -> Result<Order, StorageError> {
        self.inner.get_by_number(number).await
    }
    async fn list(&self, filter: &OrderFilter, page: PageRequest) -> Result<Page<Order>, StorageError> {
        self.inner.list(filter, page).await
    }
    async fn save(&self, change: &OrderChange) -> Result<(), StorageError> {
        *self.saves.lock().expect("lock") += 1;
        self.rival_goes_first(change.order.id).await;
        self.inner.save(change).await
    }
    async fn delete(&self, deletion: &OrderDeletion, now: time::OffsetDateTime) -> Result<(), StorageError> {
        self.rival_goes_first(deletion.order_id).await;
        self.inner.delete(deletion, now).await
    }
}

/// The service over a raced repository (not armed yet), with a pending order of one line in it.
fn raced() -> (OrderService, Arc<Raced>, Order) {
    let repo = Arc::new(Raced::default());
    let service = service_over(repo.clone());
    let order = pending_with_line(&service);
    (service, repo, order)
}

#[test]
fn a_lost_race_is_decided_again_on_the_winners_order() {
    let at = datetime!(2026-03-01 09:00 UTC);
    // The rival cancelled first: confirming the reloaded order is refused precisely.
    let (service, repo, order) = raced();
    repo.arm(move |o| o.cancel(at).expect("cancellable"));
    assert_eq!(code(block_on(service.confirm(order.id))), ("INVALID_STATUS_TRANSITION", None));
    assert_eq!(*repo.saves.lock().expect("lock"), 1, "the second decision refused without writing");
    // The rival changed a line first: confirming again holds, on top of the rival's change.
    let (service, repo, order) = raced();
    repo.arm(move |o| o.change_line_quantity(o.lines[0].id, 4, at).expect("editable"));
    let confirmed = block_on(service.confirm(order.id)).expect("confirmed on the second try");
    assert_eq!((confirmed.version, confirmed.subtotal, *repo.saves.lock().expect("lock")), (3, 2000, 2));
    // A deletion that lost to a confirmation is refused on the reload.
    let (service, repo, order) = raced();
    repo.arm(move |o| o.confirm(at).expect("confirmable"));
    assert_eq!(code(block_on(service.delete(order.id))), ("INVALID_STATUS_TRANSITION", None));
    // A reply that lost to a cancellation changes nothing.
    let (service, repo, order) = raced();
    block_on(service.confirm(order.id)).expect("confirmed");
    repo.arm(move |o| o.cancel(at).expect("cancellable"));
    let reply = WarehouseReply::Reserved(StockReserved { order_id: order.id, allocations: Vec::new() });
    assert_eq!(block_on(service.fold_reply(&reply)), Ok(None));
    let stored = block_on(repo.get(order.id)).expect("stored");
    assert_eq!((stored.status, stored.reservation_status), (OrderStatus::Cancelled, ReservationStatus::Pending));
}

/// A repository whose every save loses.
struct AlwaysStale(InMemoryOrderRepository);

#[async_trait]
impl OrderRepository for AlwaysStale {
    async fn create(&self, draft: OrderDraft) -> Result<Order, StorageError> {
        self.0.create(draft).await
    }
    async fn get(&self, id: Uuid) -> Result<Order, StorageError> {
        self.0.get(id).await
    }
    async fn get_by_number(&self, number: &OrderNumber) -> Result<Order, StorageError> {
        self.0.get_by_number(number).await
    }
    async fn list(&self, filter: &OrderFilter, page: PageRequest) -> Result<Page<Order>, StorageError> {
        self.0.list(filter, page).await
    }
    async fn save(&self, _: &OrderChange) -> Result<(), StorageError> {
        Err(StorageError::Stale)
    }
    async fn delete(&self, _: &OrderDeletion, _: time::OffsetDateTime) -> Result<(), StorageError> {
        Err(StorageError::Stale)
    }
}

#[test]
fn a_race_lost_every_time_is_a_conflict() {
    let service = service_over(Arc::new(AlwaysStale(InMemoryOrderRepository::new())));
    let order = pending_with_line(&service);
    assert_eq!(code(block_on(service.confirm(order.id))), ("CONFLICT", None));
    assert_eq!(code(block_on(service.delete(order.id))), ("CONFLICT", None));
}

#[test]
fn an_inactive_currency_is_refused() {
    let register = InMemoryCurrencyRegister::with_active(&["USD"]);
    register.deactivate(CurrencyCode::parse("USD").expect("a code"));
    let service = OrderService::new(
        Arc::new(InMemoryOrderRepository::new()),
        Arc::new(InMemoryCustomerDirectory::new().with_customer(CUSTOMER)),
        Arc::new(InMemoryProductCatalog::new()),
        Arc::new(register),
        Arc::new(FixedClock(datetime!(2026-03-01 10:00 UTC))),
    );
    assert_eq!(code(block_on(service.create(create(None)))), ("VALIDATION_ERROR", Some("currency".into())));
}
