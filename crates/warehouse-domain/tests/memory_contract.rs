//! The contract suite of the warehouse ports (`warehouse_domain::contract`) against the in-memory
//! store, and what only it shows: the replies the order flow wrote.

#![cfg(feature = "contract")]

use warehouse_domain::contract::{self, Ports, PurchasingPorts};
use warehouse_domain::memory::InMemoryWarehouse;

fn ports(store: &InMemoryWarehouse) -> Ports<'_> {
    Ports { products: store, locations: store, inventory: store, movements: store, order_stock: store }
}

#[tokio::test]
async fn in_memory_store_passes_the_whole_contract() {
    let store = InMemoryWarehouse::new();
    contract::run_all(ports(&store)).await;
    let names: Vec<String> = store.take_events().into_iter().map(|e| e.name).collect();
    assert_eq!(
        names,
        [
            "warehouse.reservation_failed",
            "warehouse.stock_reserved",
            "warehouse.stock_committed",
            "warehouse.stock_released"
        ]
    );
}

fn purchasing(store: &InMemoryWarehouse) -> PurchasingPorts<'_> {
    PurchasingPorts { stock: ports(store), suppliers: store, purchase_orders: store, reorder: store, transfers: store }
}

#[tokio::test]
async fn in_memory_store_passes_the_purchasing_contract() {
    let store = InMemoryWarehouse::new();
    contract::run_purchasing(purchasing(&store)).await;
    // A reorder point set above what is available is a crossing too (crate::alerts).
    let names: Vec<String> = store.take_events().into_iter().map(|e| e.name).collect();
    assert_eq!(
        names,
        [
            "purchase_order.cancelled",
            "purchase_order.submitted",
            "purchase_order.received",
            "warehouse.stock_low",
            "purchase_order.submitted",
            "transfer.shipped",
            "transfer.received",
            "transfer.shipped",
            "transfer.cancelled",
        ]
    );
}

#[tokio::test]
async fn each_promise_holds_on_a_fresh_store() {
    let fresh = InMemoryWarehouse::new;
    contract::products_are_created_read_and_unique_by_sku(&fresh()).await;
    contract::product_saves_are_compare_and_set(&fresh()).await;
    contract::product_delete_is_soft_and_frees_the_sku(&fresh()).await;
    contract::products_list_filters_and_pages(&fresh()).await;
    contract::locations_are_created_read_and_unique_by_code(&fresh()).await;
    contract::location_saves_are_compare_and_set(&fresh()).await;
    contract::location_delete_is_refused_while_it_holds_stock(ports(&fresh())).await;
    contract::inventory_is_one_record_per_product_and_location(ports(&fresh())).await;
    contract::quantity_changes_are_compare_and_set_with_their_movement(ports(&fresh())).await;
    contract::transfers_move_stock_and_create_the_destination(ports(&fresh())).await;
    contract::inventory_delete_is_refused_while_reserved(ports(&fresh())).await;
    contract::movements_are_listed_newest_first_with_their_filters(ports(&fresh())).await;
    contract::orders_are_reserved_all_or_nothing_and_settled(ports(&fresh())).await;
    contract::a_release_before_its_confirmation_wins(ports(&fresh())).await;
    contract::suppliers_are_compare_and_set_and_kept_while_orders_are_open(purchasing(&fresh())).await;
    contract::purchase_orders_are_numbered_and_created_all_or_none(purchasing(&fresh())).await;
    contract::receipts_move_stock_with_their_movements_as_one_change(purchasing(&fresh())).await;
    contract::reorder_candidates_are_the_low_records_with_their_incoming(purchasing(&fresh())).await;
    contract::transfers_ship_all_or_nothing_and_put_back_what_they_cancel(purchasing(&fresh())).await;
}
