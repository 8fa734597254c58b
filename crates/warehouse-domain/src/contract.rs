//! The contract suite of the warehouse ports (feature `contract`): one async function per promise,
//! each panicking (plain `assert!`) when an adapter breaks it. Every adapter runs it: the in-memory
//! one in `crates/warehouse-domain/tests/memory_contract.rs`, the PostgreSQL ones in
//! `tests/tests/api/warehouse_contract.rs`; an adapter of another service calls [`run_all`], and
//! [`run_purchasing`] once it serves suppliers, purchase orders, reorder candidates and transfers.
//!
//! The suite makes its own products, locations and records through the ports, with SKUs and codes
//! no other data uses (a fresh id in each), and finds them again by their ids, so other data in the
//! same store does not disturb it. Timestamps are whole seconds, which every store keeps exactly.

mod catalogue;
mod order_stock;
mod purchasing;
mod stock;
mod transfers;

pub use catalogue::*;
pub use order_stock::*;
pub use purchasing::*;
pub use stock::*;
pub use transfers::*;

use time::macros::datetime;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::inventory::{Inventory, NewInventory};
use crate::location::{Address, CountryCode, Location, LocationInput, LocationType};
use crate::operations::{Receipt, Stamp};
use crate::product::{Product, ProductInput};
use crate::purchasing::{PurchaseOrderRepository, ReorderRepository, SupplierRepository};
use crate::quantities::Thresholds;
use crate::repository::{
    InventoryRepository, LocationRepository, OrderStockRepository, ProductRepository, StockMovementRepository,
};
use crate::transfers::TransferRepository;

/// The five ports of one store, as the suite uses them together (a record needs a product and a
/// location; a location's stock and an order's hold read the records).
#[derive(Clone, Copy)]
pub struct Ports<'a> {
    /// Where products are kept.
    pub products: &'a dyn ProductRepository,
    /// Where locations are kept.
    pub locations: &'a dyn LocationRepository,
    /// Where inventory records are kept.
    pub inventory: &'a dyn InventoryRepository,
    /// The ledger of the same store.
    pub movements: &'a dyn StockMovementRepository,
    /// The order flow of the same store.
    pub order_stock: &'a dyn OrderStockRepository,
}

/// Every promise of every port, one after another.
pub async fn run_all(ports: Ports<'_>) {
    products_are_created_read_and_unique_by_sku(ports.products).await;
    product_saves_are_compare_and_set(ports.products).await;
    product_delete_is_soft_and_frees_the_sku(ports.products).await;
    products_list_filters_and_pages(ports.products).await;
    locations_are_created_read_and_unique_by_code(ports.locations).await;
    location_saves_are_compare_and_set(ports.locations).await;
    location_delete_is_refused_while_it_holds_stock(ports).await;
    inventory_is_one_record_per_product_and_location(ports).await;
    quantity_changes_are_compare_and_set_with_their_movement(ports).await;
    transfers_move_stock_and_create_the_destination(ports).await;
    inventory_delete_is_refused_while_reserved(ports).await;
    movements_are_listed_newest_first_with_their_filters(ports).await;
    orders_are_reserved_all_or_nothing_and_settled(ports).await;
    a_release_before_its_confirmation_wins(ports).await;
}

/// The ports of purchasing and transfers, with the stock ports of the same store (a receipt or a
/// transfer moves that store's stock). Kept apart from [`Ports`] so that an adapter of the five stock
/// ports runs [`run_all`] without them.
#[derive(Clone, Copy)]
pub struct PurchasingPorts<'a> {
    /// The stock ports of the same store.
    pub stock: Ports<'a>,
    /// Where suppliers are kept.
    pub suppliers: &'a dyn SupplierRepository,
    /// Where purchase orders are kept.
    pub purchase_orders: &'a dyn PurchaseOrderRepository,
    /// The reorder candidates of the same store.
    pub reorder: &'a dyn ReorderRepository,
    /// Where transfers are kept.
    pub transfers: &'a dyn TransferRepository,
}

/// Every promise of the purchasing and transfer ports, one after another.
pub async fn run_purchasing(ports: PurchasingPorts<'_>) {
    suppliers_are_compare_and_set_and_kept_while_orders_are_open(ports).await;
    purchase_orders_are_numbered_and_created_all_or_none(ports).await;
    receipts_move_stock_with_their_movements_as_one_change(ports).await;
    reorder_candidates_are_the_low_records_with_their_incoming(ports).await;
    transfers_ship_all_or_nothing_and_put_back_what_they_cancel(ports).await;
}

/// Whole seconds from a fixed day, so every store keeps them exactly.
fn at(seconds: i64) -> OffsetDateTime {
    datetime!(2031-05-01 08:00 UTC) + time::Duration::seconds(seconds)
}

fn stamp(seconds: i64) -> Stamp {
    Stamp { at: at(seconds), by: None }
}

/// A text no other data uses: `prefix` and a fresh id's last twelve (random) hex digits.
fn unique(prefix: &str) -> String {
    let id = shared_kernel::new_id().simple().to_string();
    format!("{prefix}-{}", &id[20..])
}

fn product_input(sku: &str) -> ProductInput {
    ProductInput {
        sku: sku.to_owned(),
        name: format!("Contract {sku}"),
        description: None,
        category: Some(format!("cat-{sku}")),
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
        code: code.to_owned(),
        name: format!("Contract {code}"),
        location_type: LocationType::Warehouse,
        address: Address::default(),
        country: CountryCode::parse("DE").expect("DE is an ISO 3166-1 code"),
        capacity: None,
    }
}

async fn new_product(products: &dyn ProductRepository) -> Product {
    let product = Product::create(product_input(&unique("CP")), at(0)).expect("valid");
    products.create(&product).await.expect("create product");
    product
}

async fn new_location(locations: &dyn LocationRepository) -> Location {
    let location = Location::create(location_input(&unique("CL")), at(0)).expect("valid");
    locations.create(&location).await.expect("create location");
    location
}

/// A record of a new product at a new location holding `on_hand` units.
async fn stocked(ports: Ports<'_>, on_hand: i64) -> (Inventory, Uuid) {
    let product = new_product(ports.products).await;
    let location = new_location(ports.locations).await;
    let record = record_at(ports, product.id, location.id, on_hand).await;
    (record, product.id)
}

async fn record_at(ports: Ports<'_>, product_id: Uuid, location_id: Uuid, on_hand: i64) -> Inventory {
    let input = NewInventory { product_id, location_id, quantity_on_hand: None, thresholds: Thresholds::default() };
    let (record, _) = Inventory::create(input, stamp(0)).expect("valid");
    ports.inventory.create(&record, None).await.expect("create record");
    if on_hand == 0 {
        return record;
    }
    let change = record.receive(Receipt::of(on_hand), stamp(1)).expect("receive");
    ports.inventory.apply(&change).await.expect("receive");
    change.inventory
}
