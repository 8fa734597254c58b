//! The warehouse's use cases (`warehouse_domain::application`) over the in-memory store: each rule,
//! each refusal with its code, and a lost race decided again.

#![cfg(feature = "memory")]

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use event_contracts::orders::{OrderEventData, OrderEventLine, ORDER_CANCELLED, ORDER_CONFIRMED, ORDER_CREATED};
use shared_kernel::application::FixedClock;
use shared_kernel::error::Classified;
use shared_kernel::{CurrencyCode, Page, PageRequest};
use time::macros::datetime;
use time::OffsetDateTime;
use uuid::Uuid;
use warehouse_domain::application::{
    InventoryService, LocationRequest, LocationService, MovementRequest, OrderStock, OrderStockOutcome, ProductService,
    ReceiptRequest, StockOperations,
};
use warehouse_domain::memory::InMemoryWarehouse;
use warehouse_domain::{
    Address, CountryCode, LocationInput, LocationType, MovementType, NewInventory, Product, ProductFilter,
    ProductInput, ProductRepository, ProductStatus, RepoError, ReservationOutcome, SettleOutcome, Thresholds,
    WarehouseError,
};

const USER: Uuid = Uuid::from_u128(1);

fn clock() -> Arc<FixedClock> {
    Arc::new(FixedClock(datetime!(2026-03-01 10:00 UTC)))
}

fn usd() -> CurrencyCode {
    CurrencyCode::parse("USD").expect("USD")
}

fn product_input(sku: &str) -> ProductInput {
    ProductInput {
        sku: sku.into(),
        name: "Widget".into(),
        description: None,
        category: None,
        brand: None,
        weight_grams: None,
        length_mm: None,
        width_mm: None,
        height_mm: None,
        price: None,
        currency: None,
        supplier_id: None,
    }
}

fn location_input(code: &str) -> LocationInput {
    LocationInput {
        code: code.into(),
        name: "Main".into(),
        location_type: LocationType::Warehouse,
        address: Address::default(),
        country: CountryCode::parse("DE").expect("DE"),
        capacity: None,
    }
}

fn code(error: RepoError) -> &'static str {
    error.code()
}

/// A product, a location and a record with `on_hand` units, through the use cases.
async fn stocked(store: &Arc<InMemoryWarehouse>, on_hand: i64) -> (Uuid, Uuid, Uuid) {
    let product = ProductService::new(store.clone(), store.clone(), clock())
        .create(product_input("WID-1"))
        .await
        .expect("product");
    let location = LocationService::new(store.clone(), store.clone(), clock())
        .create(location_input("L1"))
        .await
        .expect("location");
    let input = NewInventory {
        product_id: product.id,
        location_id: location.id,
        quantity_on_hand: Some(on_hand),
        thresholds: Thresholds::default(),
    };
    let inventory = InventoryService::new(store.clone(), store.clone(), store.clone(), clock());
    let record = inventory.create(input, USER).await.expect("record");
    (product.id, location.id, record.id)
}

fn operations(store: &Arc<InMemoryWarehouse>) -> StockOperations {
    StockOperations::new(store.clone(), store.clone(), store.clone(), store.clone(), clock(), usd())
}

#[tokio::test]
async fn products_move_between_states_and_answer_their_own_not_found() {
    let store = Arc::new(InMemoryWarehouse::new());
    let products = ProductService::new(store.clone(), store.clone(), clock());
    let product = products.create(product_input("WID-1")).await.expect("create");
    assert_eq!(products.create(product_input("wid-1")).await.map_err(code), Err("ALREADY_EXISTS"));
    assert_eq!(products.create(product_input(" ")).await.map_err(code), Err("VALIDATION_ERROR"));
    let stopped = products.discontinue(product.id).await.expect("discontinue");
    assert_eq!(stopped.status, ProductStatus::Discontinued);
    assert_eq!(products.discontinue(product.id).await.map_err(code), Err("INVALID_STATUS_TRANSITION"));
    products.activate(product.id).await.expect("activate");
    products.delete(product.id).await.expect("delete");
    let missing = RepoError::Refused(WarehouseError::NotFound { entity: "product" });
    assert_eq!(products.get(product.id).await, Err(missing.clone()));
    assert_eq!(products.update(product.id, product_input("WID-2")).await, Err(missing.clone()));
    assert_eq!(products.delete(product.id).await, Err(missing));
}

/// Delegates to the store; before the first update, another writer renames the product.
struct RacingProducts {
    store: Arc<InMemoryWarehouse>,
    raced: AtomicBool,
}

#[async_trait]
impl ProductRepository for RacingProducts {
    async fn create(&self, product: &Product) -> Result<(), RepoError> {
        self.store.create(product).await
    }
    async fn get(&self, id: Uuid) -> Result<Product, RepoError> {
        ProductRepository::get(&*self.store, id).await
    }
    async fn get_many(&self, ids: &[Uuid]) -> Result<Vec<Product>, RepoError> {
        self.store.get_many(ids).await
    }
    async fn get_by_sku(&self, sku: &str) -> Result<Product, RepoError> {
        self.store.get_by_sku(sku).await
    }
    async fn list(&self, filter: &ProductFilter, page: PageRequest) -> Result<Page<Product>, RepoError> {
        ProductRepository::list(&*self.store, filter, page).await
    }
    async fn update(&self, product: &Product) -> Result<(), RepoError> {
        if !self.raced.swap(true, Ordering::SeqCst) {
            let current = ProductRepository::get(&*self.store, product.id).await?;
            let input = ProductInput { name: "Renamed elsewhere".into(), ..product_input(&current.sku) };
            ProductRepository::update(&*self.store, &current.update(input, current.updated_at).expect("valid")).await?;
        }
        ProductRepository::update(&*self.store, product).await
    }
    async fn change_status(&self, product: &Product, expected: ProductStatus) -> Result<(), RepoError> {
        self.store.change_status(product, expected).await
    }
    async fn delete(&self, id: Uuid, now: OffsetDateTime) -> Result<(), RepoError> {
        ProductRepository::delete(&*self.store, id, now).await
    }
    async fn categories(&self) -> Result<Vec<String>, RepoError> {
        self.store.categories().await
    }
    async fn brands(&self) -> Result<Vec<String>, RepoError> {
        self.store.brands().await
    }
}

#[tokio::test]
async fn an_edit_that_lost_a_race_is_applied_to_the_fresh_product() {
    let store = Arc::new(InMemoryWarehouse::new());
    let racing = Arc::new(RacingProducts { store: store.clone(), raced: AtomicBool::new(false) });
    let products = ProductService::new(racing, store.clone(), clock());
    let product = products.create(product_input("WID-1")).await.expect("create");
    let input = ProductInput { brand: Some("Acme".into()), ..product_input("WID-1") };
    let updated = products.update(product.id, input).await.expect("decided again");
    assert_eq!(updated.version, 3, "over the other writer's version");
    assert_eq!(ProductRepository::get(&*store, product.id).await.map(|p| p.brand.clone()), Ok(Some("Acme".into())));
}

#[tokio::test]
async fn locations_refuse_deletion_while_they_hold_stock() {
    let store = Arc::new(InMemoryWarehouse::new());
    let (_, location_id, _) = stocked(&store, 3).await;
    let locations = LocationService::new(store.clone(), store.clone(), clock());
    assert_eq!(locations.delete(location_id).await.map_err(code), Err("LOCATION_HAS_STOCK"));
    assert!(!locations.deactivate(location_id).await.expect("deactivate").is_active);
    assert_eq!(locations.deactivate(location_id).await.map_err(code), Err("INVALID_STATUS_TRANSITION"));
    let missing = locations.get(Uuid::nil()).await;
    assert_eq!(missing, Err(RepoError::Refused(WarehouseError::NotFound { entity: "location" })));
}

#[tokio::test]
async fn inventory_checks_its_input_then_the_product_then_the_location() {
    let store = Arc::new(InMemoryWarehouse::new());
    let (product_id, location_id, record_id) = stocked(&store, 0).await;
    let inventory = InventoryService::new(store.clone(), store.clone(), store.clone(), clock());
    let input = |product_id, location_id, quantity| NewInventory {
        product_id,
        location_id,
        quantity_on_hand: Some(quantity),
        thresholds: Thresholds::default(),
    };
    let not_found = |entity| Err(RepoError::Refused(WarehouseError::NotFound { entity }));
    assert_eq!(
        inventory.create(input(Uuid::nil(), Uuid::nil(), -1), USER).await.map_err(code),
        Err("INVALID_QUANTITY")
    );
    assert_eq!(inventory.create(input(Uuid::nil(), Uuid::nil(), 1), USER).await.map(|r| r.id), not_found("product"));
    assert_eq!(inventory.create(input(product_id, Uuid::nil(), 1), USER).await.map(|r| r.id), not_found("location"));
    assert_eq!(inventory.create(input(product_id, location_id, 1), USER).await.map_err(code), Err("ALREADY_EXISTS"));
    let thresholds = Thresholds { reorder_point: Some(4), ..Thresholds::default() };
    assert_eq!(inventory.set_thresholds(record_id, thresholds).await.map(|r| r.reorder_point), Ok(Some(4)));
    assert_eq!(inventory.get(Uuid::nil()).await.map(|r| r.id), not_found("inventory record"));
}

#[tokio::test]
async fn stock_operations_apply_their_rules_and_cost_receipts_in_a_currency() {
    let store = Arc::new(InMemoryWarehouse::new());
    let (_, _, record_id) = stocked(&store, 5).await;
    let stock = operations(&store);
    let receipt = ReceiptRequest {
        quantity: 2,
        unit_cost: Some(100),
        currency: None,
        reference_type: None,
        reference_id: None,
        reason: None,
    };
    let received = stock.receive(record_id, receipt.clone(), USER).await.expect("receive");
    assert_eq!(received.movement.currency, Some(usd()), "the reporting currency: the product has none");
    assert_eq!(received.movement.created_by, Some(USER));
    let unknown = ReceiptRequest { reference_type: Some("invoice".into()), ..receipt };
    assert_eq!(stock.receive(record_id, unknown, USER).await.map_err(code), Err("VALIDATION_ERROR"));
    let order = Uuid::from_u128(9);
    assert_eq!(stock.reserve(record_id, 8, order, USER).await.map_err(code), Err("INSUFFICIENT_STOCK"));
    stock.reserve(record_id, 6, order, USER).await.expect("7 available");
    assert_eq!(stock.release(record_id, 7, order, USER).await.map_err(code), Err("RESERVATION_EXCEEDED"));
    assert_eq!(stock.damage(record_id, 2, "dropped", USER).await.map_err(code), Err("INSUFFICIENT_STOCK"));
    assert_eq!(stock.commit(record_id, 6, order, USER).await.map(|c| c.inventory.quantity_committed), Ok(6));
    assert_eq!(stock.adjust(record_id, 0, "count", USER).await.map_err(code), Err("INVALID_QUANTITY"));
    let not_found = Err(RepoError::Refused(WarehouseError::NotFound { entity: "destination location" }));
    assert_eq!(stock.transfer(record_id, Uuid::nil(), 1, USER).await, not_found);
}

#[tokio::test]
async fn a_stock_take_sets_on_hand_to_the_count_from_what_the_record_holds_then() {
    let store = Arc::new(InMemoryWarehouse::new());
    let (_, _, record_id) = stocked(&store, 5).await;
    let stock = operations(&store);
    let counted = stock.count(record_id, 9, "stock take", USER).await.expect("count").expect("a change");
    assert_eq!((counted.inventory.quantity_on_hand, counted.movement.quantity), (9, 4));
    assert_eq!(stock.count(record_id, 9, "stock take", USER).await.map(|c| c.is_none()), Ok(true), "nothing to do");
    // Stock moved since a count was read: the count still lands as given, its difference taken now.
    stock.adjust(record_id, -3, "shrinkage", USER).await.expect("adjust");
    let counted = stock.count(record_id, 8, "stock take", USER).await.expect("count").expect("a change");
    assert_eq!((counted.inventory.quantity_on_hand, counted.movement.quantity), (8, 2));
    stock.reserve(record_id, 6, Uuid::from_u128(9), USER).await.expect("reserve");
    assert_eq!(stock.count(record_id, 5, "stock take", USER).await.map_err(code), Err("INSUFFICIENT_STOCK"));
    assert_eq!(
        stock.count(record_id, 2, "", USER).await.map_err(code),
        Err("VALIDATION_ERROR"),
        "a reason is required"
    );
}

#[tokio::test]
async fn transfers_create_the_destination_record() {
    let store = Arc::new(InMemoryWarehouse::new());
    let (_, _, record_id) = stocked(&store, 5).await;
    let elsewhere = LocationService::new(store.clone(), store.clone(), clock())
        .create(location_input("L2"))
        .await
        .expect("location");
    let change = operations(&store).transfer(record_id, elsewhere.id, 2, USER).await.expect("transfer");
    assert_eq!((change.from.inventory.quantity_on_hand, change.to.inventory.quantity_on_hand), (3, 2));
    assert_eq!(change.to.inventory.location_id, elsewhere.id);
}

#[tokio::test]
async fn order_events_reserve_release_and_ignore_the_rest() {
    let store = Arc::new(InMemoryWarehouse::new());
    let (product_id, _, _) = stocked(&store, 5).await;
    let orders = OrderStock::new(store.clone(), clock());
    let data = |quantity| OrderEventData {
        order_id: Uuid::from_u128(100),
        order_number: "ORD-2026-000001".into(),
        customer_id: Uuid::from_u128(7),
        currency: usd(),
        lines: vec![OrderEventLine { line_id: Uuid::from_u128(101), product_id, quantity }],
    };
    assert!(OrderStock::handles(ORDER_CONFIRMED) && !OrderStock::handles(ORDER_CREATED));
    assert_eq!(orders.on_order_event(ORDER_CREATED, &data(1)).await, Ok(OrderStockOutcome::Ignored));
    let short = orders.on_order_event(ORDER_CONFIRMED, &data(6)).await.expect("ok");
    assert!(matches!(short, OrderStockOutcome::Reservation(ReservationOutcome::Failed(_))), "{short:?}");
    let other = OrderEventData { order_id: Uuid::from_u128(200), ..data(5) };
    let reserved = orders.on_order_event(ORDER_CONFIRMED, &other).await.expect("ok");
    assert!(matches!(reserved, OrderStockOutcome::Reservation(ReservationOutcome::Reserved(_))), "{reserved:?}");
    let released = orders.on_order_event(ORDER_CANCELLED, &other).await.expect("ok");
    let OrderStockOutcome::Settlement(SettleOutcome::Settled(released)) = released else { panic!("{released:?}") };
    assert_eq!(released.iter().map(|r| r.quantity).sum::<i64>(), 5);
    let late = orders.on_order_event(ORDER_CONFIRMED, &other).await;
    assert_eq!(late, Ok(OrderStockOutcome::Reservation(ReservationOutcome::AlreadyReleased)));
    let replies: Vec<String> = store.take_events().into_iter().map(|e| e.name).collect();
    assert_eq!(replies, ["warehouse.reservation_failed", "warehouse.stock_reserved", "warehouse.stock_released"]);
}

fn field_of(error: RepoError) -> (&'static str, Option<&'static str>) {
    match error {
        RepoError::Refused(refusal) => (refusal.code(), refusal.field()),
        other => (other.code(), None),
    }
}

#[tokio::test]
async fn a_products_currency_is_an_active_one_checked_before_anything_else() {
    let store = Arc::new(InMemoryWarehouse::new());
    let products = ProductService::new(store.clone(), store.clone(), clock());
    let chf = CurrencyCode::parse("CHF").expect("CHF");
    let priced = |sku: &str, currency| ProductInput { currency: Some(currency), ..product_input(sku) };
    let refused = products.create(priced(" ", chf)).await.map_err(field_of);
    assert_eq!(refused, Err(("VALIDATION_ERROR", Some("currency"))), "the currency before the SKU's rules");
    store.set_currency(chf, false);
    assert_eq!(
        products.create(priced("WID-1", chf)).await.map_err(field_of),
        Err(("VALIDATION_ERROR", Some("currency")))
    );
    store.set_currency(chf, true);
    let product = products.create(priced("WID-1", chf)).await.expect("an active currency");
    assert_eq!(product.currency, Some(chf));
    store.set_currency(chf, false);
    let missing = products.update(Uuid::nil(), priced("WID-1", chf)).await.map_err(field_of);
    assert_eq!(missing, Err(("VALIDATION_ERROR", Some("currency"))), "before the product is read");
}

#[tokio::test]
async fn a_locations_country_is_known_then_its_address_country_is_parsed() {
    let store = Arc::new(InMemoryWarehouse::new());
    let locations = LocationService::new(store.clone(), store.clone(), clock());
    let ch = CountryCode::parse("CH").expect("CH");
    let swiss = LocationInput { country: ch, ..location_input("ZRH-1") };
    let bad_address = LocationRequest { input: swiss.clone(), address_country: Some("Swiss".into()) };
    let refused = locations.create(bad_address.clone()).await.map_err(field_of);
    assert_eq!(refused, Err(("VALIDATION_ERROR", Some("country"))), "the country before the address's");
    store.add_country(ch);
    let refused = locations.create(bad_address).await.map_err(field_of);
    assert_eq!(refused, Err(("VALIDATION_ERROR", Some("address.country"))));
    let good = LocationRequest { input: swiss, address_country: Some(" ch ".into()) };
    let created = locations.create(good).await.expect("created");
    assert_eq!(created.address.country, Some(ch));
    assert_eq!(locations.country("xx").await.map_err(field_of), Err(("VALIDATION_ERROR", Some("country"))));
    assert_eq!(locations.country("Nope").await.map_err(field_of), Err(("VALIDATION_ERROR", Some("country"))));
    assert_eq!(locations.country(" ch").await, Ok(ch));
    let unknown = LocationInput { country: CountryCode::parse("XX").expect("XX"), ..location_input("L9") };
    let missing = locations.update(Uuid::nil(), unknown).await.map_err(field_of);
    assert_eq!(missing, Err(("VALIDATION_ERROR", Some("country"))), "before the location is read");
}

#[tokio::test]
async fn a_receipts_sent_currency_is_active_and_a_missing_one_is_the_products() {
    let store = Arc::new(InMemoryWarehouse::new());
    let (_, _, record_id) = stocked(&store, 0).await;
    let stock = operations(&store);
    let receipt = |unit_cost, currency: Option<&str>| ReceiptRequest {
        quantity: 1,
        unit_cost,
        currency: currency.map(str::to_owned),
        reference_type: Some("invoice".into()),
        reference_id: None,
        reason: None,
    };
    let chf = CurrencyCode::parse("CHF").expect("CHF");
    let refused = stock.receive(record_id, receipt(Some(5), Some("chf")), USER).await.map_err(field_of);
    assert_eq!(refused, Err(("VALIDATION_ERROR", Some("currency"))), "the currency before the reference type");
    let refused = stock.receive(record_id, receipt(Some(5), Some("francs")), USER).await.map_err(field_of);
    assert_eq!(refused, Err(("VALIDATION_ERROR", Some("currency"))));
    let refused = stock.receive(record_id, receipt(None, Some("chf")), USER).await.map_err(field_of);
    assert_eq!(refused, Err(("VALIDATION_ERROR", Some("reference_type"))), "no cost: the currency is not looked at");
    store.set_currency(chf, true);
    let ok = |unit_cost, currency| ReceiptRequest { reference_type: None, ..receipt(unit_cost, currency) };
    let received = stock.receive(record_id, ok(Some(5), Some(" chf ")), USER).await.expect("received");
    assert_eq!(received.movement.currency, Some(chf));
    let received = stock.receive(record_id, ok(Some(5), Some(" ")), USER).await.expect("received");
    assert_eq!(received.movement.currency, Some(usd()), "blank: the reporting currency, the product has none");
}

#[tokio::test]
async fn a_posted_movement_is_one_of_four_types_with_the_fields_its_type_needs() {
    let store = Arc::new(InMemoryWarehouse::new());
    let (_, _, record_id) = stocked(&store, 5).await;
    let stock = operations(&store);
    let post = |request: MovementRequest| stock.post(record_id, request, USER);
    let typed = |t: &str| MovementRequest { movement_type: t.into(), ..MovementRequest::default() };
    assert_eq!(post(typed("Nonsense")).await.map_err(field_of), Err(("VALIDATION_ERROR", Some("type"))));
    let reservation = MovementRequest { quantity: Some(1), ..typed("Reservation") };
    assert_eq!(post(reservation).await.map_err(field_of), Err(("VALIDATION_ERROR", Some("type"))));
    let required = |request| async move { post(request).await.map_err(field_of) };
    assert_eq!(required(typed("Receipt")).await, Err(("VALIDATION_ERROR", Some("quantity"))));
    let costly = MovementRequest { unit_cost: Some(1), currency: Some("CHF".into()), ..typed("Receipt") };
    assert_eq!(required(costly.clone()).await, Err(("VALIDATION_ERROR", Some("quantity"))), "quantity first");
    let costly = MovementRequest { quantity: Some(1), ..costly };
    assert_eq!(required(costly).await, Err(("VALIDATION_ERROR", Some("currency"))));
    assert_eq!(required(typed("Adjustment")).await, Err(("VALIDATION_ERROR", Some("quantity_delta"))));
    let delta = MovementRequest { quantity_delta: Some(2), ..typed("adjustment") };
    assert_eq!(required(delta.clone()).await, Err(("VALIDATION_ERROR", Some("reason"))));
    let adjusted = post(MovementRequest { reason: Some("count".into()), ..delta }).await.expect("adjusted");
    assert_eq!((adjusted.movement.movement_type, adjusted.inventory.quantity_on_hand), (MovementType::Adjustment, 7));
    let damage = MovementRequest { quantity: Some(1), ..typed("Damage") };
    assert_eq!(required(damage).await, Err(("VALIDATION_ERROR", Some("reason"))));
    assert_eq!(required(typed("Return")).await, Err(("VALIDATION_ERROR", Some("quantity"))));
    let order = Uuid::from_u128(42);
    let returned = MovementRequest { quantity: Some(1), reference_id: Some(order), ..typed("Return") };
    let returned = post(returned).await.expect("returned");
    assert_eq!(returned.movement.reference_id, Some(order), "a return's order: order_id, else reference_id");
    let received = post(MovementRequest { quantity: Some(3), ..typed("Receipt") }).await.expect("received");
    assert_eq!(received.inventory.quantity_on_hand, 11);
}
