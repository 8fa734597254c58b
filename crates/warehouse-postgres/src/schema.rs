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
