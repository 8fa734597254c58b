//! Diesel tables of order management, kept in step with `migrations/…_orders_warehouse` by hand.

diesel::table! {
    order_counters (year) {
        year -> Int4,
        last -> Int4,
    }
}

diesel::table! {
    orders (id) {
        id -> Uuid,
        order_number -> Varchar,
        customer_id -> Uuid,
        company_id -> Nullable<Uuid>,
        status -> Varchar,
        currency -> Bpchar,
        subtotal -> Int8,
        tax -> Int8,
        discount -> Int8,
        total -> Int8,
        notes -> Nullable<Varchar>,
        reservation_status -> Varchar,
        reservation_error -> Nullable<Varchar>,
        confirmed_at -> Nullable<Timestamptz>,
        fulfilled_at -> Nullable<Timestamptz>,
        cancelled_at -> Nullable<Timestamptz>,
        version -> Int8,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
    }
}

diesel::table! {
    order_lines (id) {
        id -> Uuid,
        order_id -> Uuid,
        product_id -> Uuid,
        quantity -> Int8,
        unit_price -> Int8,
        subtotal -> Int8,
        description -> Nullable<Varchar>,
        sku -> Nullable<Varchar>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::joinable!(order_lines -> orders (order_id));

diesel::allow_tables_to_appear_in_same_query!(order_counters, orders, order_lines);
