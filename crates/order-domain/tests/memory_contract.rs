//! The contract suite of `OrderRepository` (`order_domain::contract`) against the in-memory adapter,
//! and what only the in-memory adapter shows: the events each write carried.

#![cfg(feature = "contract")]

use order_domain::contract;
use order_domain::memory::InMemoryOrderRepository;
use order_domain::{NewLine, NewOrder, OrderDraft, OrderRepository, RepoError};
use shared_kernel::CurrencyCode;
use time::macros::datetime;
use uuid::Uuid;

const CUSTOMER: Uuid = Uuid::from_u128(7);
const PRODUCT: Uuid = Uuid::from_u128(42);

#[tokio::test]
async fn in_memory_adapter_passes_the_whole_contract() {
    contract::run_all(&InMemoryOrderRepository::new(), CUSTOMER, PRODUCT).await;
}

#[tokio::test]
async fn each_promise_holds_on_a_fresh_repository() {
    contract::create_numbers_per_year(&InMemoryOrderRepository::new(), CUSTOMER).await;
    contract::get_returns_order_with_lines(&InMemoryOrderRepository::new(), CUSTOMER, PRODUCT).await;
    contract::save_writes_changes(&InMemoryOrderRepository::new(), CUSTOMER, PRODUCT).await;
    contract::save_of_stale_change_is_refused(&InMemoryOrderRepository::new(), CUSTOMER, PRODUCT).await;
    contract::concurrent_saves_one_wins(&InMemoryOrderRepository::new(), CUSTOMER, PRODUCT).await;
    contract::save_of_missing_order_is_not_found(&InMemoryOrderRepository::new(), CUSTOMER).await;
    contract::delete_is_soft_and_conditional(&InMemoryOrderRepository::new(), CUSTOMER, PRODUCT).await;
    contract::list_filters_sorts_and_pages(&InMemoryOrderRepository::new(), CUSTOMER, PRODUCT).await;
}

#[tokio::test]
async fn in_memory_adapter_is_a_reply_inbox_that_takes_each_delivery_once() {
    let repo = InMemoryOrderRepository::new();
    contract::reply_inbox_takes_each_delivery_once(&repo, &repo, CUSTOMER, PRODUCT).await;
}

#[tokio::test(flavor = "current_thread")]
async fn numbers_start_at_one_per_year_and_writes_keep_their_events() {
    let repo = InMemoryOrderRepository::new();
    let usd = CurrencyCode::parse("USD").expect("USD");
    let draft = |now| {
        let input =
            NewOrder { customer_id: CUSTOMER, company_id: None, currency: usd, tax: 0, discount: 0, notes: None };
        OrderDraft::new(input, now).expect("valid")
    };
    let now = datetime!(2026-03-01 10:00 UTC);
    let first = repo.create(draft(now)).await.expect("create");
    let other_year = repo.create(draft(datetime!(2027-01-01 00:00 UTC))).await.expect("create");
    let second = repo.create(draft(now)).await.expect("create");
    assert_eq!(
        [&first.order_number, &other_year.order_number, &second.order_number],
        ["ORD-2026-000001", "ORD-2027-000001", "ORD-2026-000002"]
    );

    let line =
        NewLine { product_id: PRODUCT, quantity: 1, unit_price: 100, currency: usd, description: None, sku: None };
    let order = first.add_line(line, now).expect("add");
    repo.save(&order).await.expect("save");
    let confirm = order.order.confirm(now).expect("confirm");
    repo.save(&confirm).await.expect("save");
    let events = repo.events();
    let names: Vec<&str> = events.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["order.created", "order.created", "order.created", "order.confirmed"]);
    assert_eq!(events[3], confirm.events[0]);

    // A refused write keeps no event.
    assert_eq!(repo.save(&first.cancel(now).expect("cancel")).await, Err(RepoError::Stale));
    assert_eq!(repo.take_events().len(), 4);
    assert!(repo.events().is_empty(), "taken");
}

#[tokio::test]
async fn the_same_draft_twice_is_a_conflict_and_uses_no_number() {
    let repo = InMemoryOrderRepository::new();
    let usd = CurrencyCode::parse("USD").expect("USD");
    let input = NewOrder { customer_id: CUSTOMER, company_id: None, currency: usd, tax: 0, discount: 0, notes: None };
    let draft = OrderDraft::new(input, datetime!(2026-03-01 10:00 UTC)).expect("valid");
    repo.create(draft.clone()).await.expect("create");
    assert_eq!(repo.create(draft).await, Err(RepoError::Conflict { field: "resource" }));
    assert_eq!(repo.events().len(), 1);
}

#[tokio::test]
async fn in_memory_reference_ports_pass_their_contract() {
    use order_domain::application::CatalogProduct;
    use order_domain::memory::{InMemoryCurrencyRegister, InMemoryCustomerDirectory, InMemoryProductCatalog};
    let (company, retired) = (Uuid::from_u128(8), Uuid::from_u128(43));
    let directory = InMemoryCustomerDirectory::new().with_customer(CUSTOMER).with_company(company);
    contract::directory_finds_live_customers_and_companies(&directory, CUSTOMER, company).await;
    let catalog = InMemoryProductCatalog::new()
        .with(CatalogProduct { id: PRODUCT, name: "Widget".into(), sku: "W-1".into(), orderable: true })
        .with(CatalogProduct { id: retired, name: "Old".into(), sku: "O-1".into(), orderable: false });
    contract::catalog_finds_products_with_what_a_line_copies(&catalog, PRODUCT, retired).await;
    contract::register_knows_active_currencies(&InMemoryCurrencyRegister::with_active(&["USD"])).await;
}
