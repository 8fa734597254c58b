//! Diesel tables of warehouse management, kept in step with `migrations/…_orders_warehouse` by hand.

diesel::table! {
    products (id) {
        id -> Uuid,
        sku -> Varchar,
        name -> Varchar,
        description -> Nullable<Varchar>,
        category -> Nullable<Varchar>,
        brand -> Nullable<Varchar>,
        weight_grams -> Nullable<Int8>,
        length_mm -> Nullable<Int8>,
        width_mm -> Nullable<Int8>,
        height_mm -> Nullable<Int8>,
        price -> Nullable<Int8>,
        currency -> Nullable<Bpchar>,
        status -> Varchar,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
        supplier_id -> Nullable<Uuid>,
    }
}

diesel::table! {
    locations (id) {
        id -> Uuid,
        code -> Varchar,
        name -> Varchar,
        #[sql_name = "type"]
        location_type -> Varchar,
        street -> Nullable<Varchar>,
        city -> Nullable<Varchar>,
        state -> Nullable<Varchar>,
        postal_code -> Nullable<Varchar>,
        country -> Bpchar,
        capacity -> Nullable<Int8>,
        is_active -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
    }
}

diesel::table! {
    inventory (id) {
        id -> Uuid,
        product_id -> Uuid,
        location_id -> Uuid,
        quantity_on_hand -> Int8,
        quantity_reserved -> Int8,
        quantity_committed -> Int8,
        reorder_point -> Nullable<Int8>,
        min_stock -> Nullable<Int8>,
        max_stock -> Nullable<Int8>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
    }
}

diesel::table! {
    stock_movements (id) {
        id -> Uuid,
        inventory_id -> Uuid,
        product_id -> Uuid,
        location_id -> Uuid,
        #[sql_name = "type"]
        movement_type -> Varchar,
        quantity -> Int8,
        quantity_before -> Int8,
        quantity_after -> Int8,
        reserved_before -> Int8,
        reserved_after -> Int8,
        unit_cost -> Nullable<Int8>,
        total_cost -> Nullable<Int8>,
        currency -> Nullable<Bpchar>,
        reference_type -> Varchar,
        reference_id -> Nullable<Uuid>,
        reason -> Nullable<Varchar>,
        created_by -> Nullable<Uuid>,
        created_at -> Timestamptz,
    }
}

diesel::table! {
    order_stock_holds (order_id) {
        order_id -> Uuid,
        status -> Varchar,
        updated_at -> Timestamptz,
    }
}

diesel::joinable!(inventory -> products (product_id));
diesel::joinable!(inventory -> locations (location_id));
diesel::joinable!(stock_movements -> inventory (inventory_id));

diesel::allow_tables_to_appear_in_same_query!(products, locations, inventory, stock_movements, order_stock_holds);

// Purchasing and transfers (migrations/2026-11-28-000027_purchasing_transfers,
// docs/purchasing-and-transfers.md).

diesel::table! {
    suppliers (id) {
        id -> Uuid,
        name -> Varchar,
        email -> Nullable<Varchar>,
        phone -> Nullable<Varchar>,
        currency -> Nullable<Bpchar>,
        lead_time_days -> Nullable<Int4>,
        notes -> Nullable<Varchar>,
        is_active -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
    }
}

diesel::table! {
    document_counters (kind, year) {
        kind -> Varchar,
        year -> Int4,
        last -> Int4,
    }
}

diesel::table! {
    purchase_orders (id) {
        id -> Uuid,
        po_number -> Varchar,
        supplier_id -> Uuid,
        location_id -> Uuid,
        currency -> Bpchar,
        status -> Varchar,
        subtotal -> Int8,
        expected_at -> Nullable<Timestamptz>,
        notes -> Nullable<Varchar>,
        submitted_at -> Nullable<Timestamptz>,
        received_at -> Nullable<Timestamptz>,
        cancelled_at -> Nullable<Timestamptz>,
        closed_at -> Nullable<Timestamptz>,
        created_by -> Nullable<Uuid>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        version -> Int8,
    }
}

diesel::table! {
    purchase_order_lines (id) {
        id -> Uuid,
        purchase_order_id -> Uuid,
        product_id -> Uuid,
        sku -> Nullable<Varchar>,
        description -> Nullable<Varchar>,
        quantity_ordered -> Int8,
        quantity_received -> Int8,
        unit_cost -> Int8,
        subtotal -> Int8,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    transfers (id) {
        id -> Uuid,
        transfer_number -> Varchar,
        from_location_id -> Uuid,
        to_location_id -> Uuid,
        status -> Varchar,
        notes -> Nullable<Varchar>,
        shipped_at -> Nullable<Timestamptz>,
        received_at -> Nullable<Timestamptz>,
        cancelled_at -> Nullable<Timestamptz>,
        created_by -> Nullable<Uuid>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        version -> Int8,
    }
}

diesel::table! {
    transfer_lines (id) {
        id -> Uuid,
        transfer_id -> Uuid,
        product_id -> Uuid,
        quantity -> Int8,
    }
}

diesel::joinable!(purchase_order_lines -> purchase_orders (purchase_order_id));
diesel::joinable!(transfer_lines -> transfers (transfer_id));
diesel::allow_tables_to_appear_in_same_query!(
    suppliers,
    purchase_orders,
    purchase_order_lines,
    transfers,
    transfer_lines
);
