// The webhook tables (migrations 000014 and 000024).

diesel::table! {
    webhook_endpoints (id) {
        id -> Uuid,
        url -> Varchar,
        description -> Nullable<Varchar>,
        events -> Array<Text>,
        secret_salt -> Bytea,
        previous_secret_salt -> Nullable<Bytea>,
        previous_secret_until -> Nullable<Timestamptz>,
        enabled -> Bool,
        disabled_reason -> Nullable<Varchar>,
        failing_since -> Nullable<Timestamptz>,
        created_by -> Nullable<Uuid>,
        created_by_key -> Nullable<Uuid>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        version -> Int8,
    }
}

diesel::table! {
    webhook_deliveries (id) {
        id -> Uuid,
        endpoint_id -> Uuid,
        event_id -> Nullable<Uuid>,
        event_type -> Varchar,
        payload -> Text,
        status -> Varchar,
        attempts -> Int4,
        next_attempt_at -> Nullable<Timestamptz>,
        claim -> Nullable<Uuid>,
        last_attempt_at -> Nullable<Timestamptz>,
        last_response_status -> Nullable<Int4>,
        created_at -> Timestamptz,
        completed_at -> Nullable<Timestamptz>,
        read_resource -> Nullable<Varchar>,
    }
}

diesel::table! {
    webhook_attempts (id) {
        id -> Int8,
        delivery_id -> Uuid,
        attempted_at -> Timestamptz,
        response_status -> Nullable<Int4>,
        duration_ms -> Int4,
        response_body -> Text,
        error -> Nullable<Varchar>,
    }
}

diesel::joinable!(webhook_deliveries -> webhook_endpoints (endpoint_id));
diesel::joinable!(webhook_attempts -> webhook_deliveries (delivery_id));
diesel::allow_tables_to_appear_in_same_query!(webhook_endpoints, webhook_deliveries, webhook_attempts);
