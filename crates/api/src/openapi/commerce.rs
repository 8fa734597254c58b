//! The OpenAPI part of order and warehouse management, merged into the whole document.

use utoipa::OpenApi;

use crate::routes::orders::{lifecycle, lines, queries};
use crate::routes::warehouse::{
    inventory, inventory_ops, location_queries, locations, movements, product_queries, products,
    purchase_order_lifecycle, purchase_orders, reorder, suppliers, transfers,
};

#[derive(OpenApi)]
#[openapi(
    paths(
        lifecycle::create_order, queries::list_orders, queries::order_by_number, queries::orders_by_customer,
        queries::orders_by_status, queries::get_order, lifecycle::confirm, lifecycle::process, lifecycle::fulfill,
        lifecycle::cancel, lifecycle::delete_order, lines::add_line, lines::change_line, lines::remove_line,
        products::create_product, product_queries::list_products, product_queries::categories, product_queries::brands,
        product_queries::product_by_sku, product_queries::products_by_category, product_queries::products_by_brand,
        product_queries::products_by_status, products::get_product, products::update_product, products::delete_product,
        product_queries::product_inventory, product_queries::product_availability, product_queries::product_movements,
        products::discontinue_product, products::activate_product,
        inventory::create_inventory, inventory::list_inventory, inventory::low_stock, inventory::get_inventory,
        inventory::update_inventory, inventory::delete_inventory, inventory_ops::receive, inventory_ops::reserve,
        inventory_ops::release, inventory_ops::commit, inventory_ops::adjust, inventory_ops::transfer,
        inventory_ops::damage, inventory_ops::return_stock,
        movements::post_movement, movements::list_movements, movements::recent_movements,
        movements::inventory_movements, movements::reference_movements, movements::type_movements,
        movements::get_movement,
        locations::create_location, location_queries::list_locations, location_queries::active_locations,
        location_queries::location_by_code, location_queries::locations_by_type, location_queries::locations_by_country,
        locations::get_location, locations::update_location, locations::delete_location, locations::activate_location,
        locations::deactivate_location, location_queries::location_inventory, location_queries::location_movements,
        location_queries::location_utilization,
        suppliers::create_supplier, suppliers::list_suppliers, suppliers::get_supplier, suppliers::update_supplier,
        suppliers::delete_supplier,
        purchase_orders::create_purchase_order, purchase_orders::list_purchase_orders,
        purchase_orders::get_purchase_order, purchase_orders::purchase_order_by_number,
        purchase_orders::add_purchase_order_line, purchase_orders::change_purchase_order_line,
        purchase_orders::remove_purchase_order_line, purchase_order_lifecycle::submit_purchase_order,
        purchase_order_lifecycle::receive_purchase_order, purchase_order_lifecycle::cancel_purchase_order,
        purchase_order_lifecycle::close_purchase_order, purchase_order_lifecycle::purchase_orders_from_suggestions,
        reorder::reorder_suggestions,
        transfers::create_transfer, transfers::list_transfers, transfers::get_transfer, transfers::ship_transfer,
        transfers::receive_transfer, transfers::cancel_transfer,
    ),
    tags(
        (name = "orders", description = "Orders with lines and totals, their lifecycle and the warehouse's reservation status \
            (orders:create/read/update/delete)"),
        (name = "warehouse", description = "Products, inventory quantities, the stock-movement ledger and locations \
            (products, inventory, stock_movements, locations × create/read/update/delete)"),
        (name = "purchasing", description = "Suppliers, purchase orders and their receipts, transfers between locations \
            and reorder suggestions (suppliers, purchase_orders, transfers × create/read/update/delete)"),
    )
)]
pub struct CommerceDoc;
