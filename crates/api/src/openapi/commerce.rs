//! The OpenAPI part of order and warehouse management, merged into the whole document.

use utoipa::OpenApi;

use crate::routes::orders::{lifecycle, lines, queries};
use crate::routes::warehouse::{
    inventory, inventory_ops, location_queries, locations, movements, product_queries, products,
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
    ),
    tags(
        (name = "orders", description = "Orders with lines and totals, their lifecycle and the warehouse's reservation status \
            (orders:create/read/update/delete)"),
        (name = "warehouse", description = "Products, inventory quantities, the stock-movement ledger and locations \
            (products, inventory, stock_movements, locations × create/read/update/delete)"),
    )
)]
pub struct CommerceDoc;
