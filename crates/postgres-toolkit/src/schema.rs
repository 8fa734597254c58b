//! Diesel table definitions, kept in step with `migrations/` by hand and
//! checked by the schema test in `tests/`.

diesel::table! {
    countries (code) {
        code -> Bpchar,
        name -> Varchar,
        region -> Varchar,
        currency_code -> Bpchar,
        calling_code -> Varchar,
        local_name -> Varchar,
        language_code -> Bpchar,
        is_active -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    currencies (code) {
        code -> Bpchar,
        name -> Varchar,
        symbol -> Varchar,
        decimal_digits -> Int2,
        is_active -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    languages (code) {
        code -> Bpchar,
        name -> Varchar,
        native_name -> Varchar,
        direction -> Varchar,
        is_active -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    timezones (code) {
        code -> Varchar,
        name -> Varchar,
        utc_offset -> Varchar,
        supports_dst -> Bool,
        region -> Varchar,
        is_active -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
    }
}

diesel::table! {
    outbox_events (id) {
        id -> Uuid,
        name -> Varchar,
        aggregate_id -> Uuid,
        occurred_at -> Timestamptz,
        data -> Jsonb,
        published_at -> Nullable<Timestamptz>,
    }
}

// `instance_id`: the instance holding the event (`events::instances`), set by the column's default.
diesel::table! {
    outbox_in_flight (event_id) {
        event_id -> Uuid,
        instance_id -> Nullable<Uuid>,
    }
}

diesel::table! {
    bus_instances (id) {
        id -> Uuid,
        seen_at -> Timestamptz,
    }
}

diesel::table! {
    inbox (event_id, handler) {
        event_id -> Uuid,
        handler -> Varchar,
        handled_at -> Timestamptz,
    }
}

diesel::table! {
    dead_letters (id) {
        id -> Uuid,
        event_id -> Uuid,
        event_name -> Varchar,
        handler -> Varchar,
        event -> Jsonb,
        last_error -> Text,
        attempts -> Int4,
        failed_at -> Timestamptz,
        requeued_at -> Nullable<Timestamptz>,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    countries,
    currencies,
    languages,
    timezones,
    outbox_events,
    inbox,
    dead_letters,
);
