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

diesel::table! {
    users (id) {
        id -> Uuid,
        email -> Varchar,
        name -> Varchar,
        password_hash -> Text,
        status -> Varchar,
        is_email_verified -> Bool,
        failed_login_count -> Int4,
        locked_until -> Nullable<Timestamptz>,
        last_login_at -> Nullable<Timestamptz>,
        token_version -> Int4,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
    }
}

diesel::table! {
    roles (id) {
        id -> Uuid,
        name -> Varchar,
        display_name -> Varchar,
        description -> Text,
        is_system -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
    }
}

diesel::table! {
    permissions (id) {
        id -> Uuid,
        resource -> Varchar,
        action -> Varchar,
        name -> Varchar,
        description -> Text,
        created_at -> Timestamptz,
        version -> Int8,
    }
}

diesel::table! {
    role_permissions (role_id, permission_id) {
        role_id -> Uuid,
        permission_id -> Uuid,
        assigned_at -> Timestamptz,
    }
}

diesel::table! {
    user_roles (user_id, role_id) {
        user_id -> Uuid,
        role_id -> Uuid,
        assigned_at -> Timestamptz,
    }
}

diesel::table! {
    contacts (id) {
        id -> Uuid,
        user_id -> Uuid,
        #[sql_name = "type"]
        contact_type -> Varchar,
        label -> Varchar,
        email -> Nullable<Varchar>,
        phone -> Nullable<Varchar>,
        street -> Nullable<Varchar>,
        city -> Nullable<Varchar>,
        state -> Nullable<Varchar>,
        postal_code -> Nullable<Varchar>,
        country -> Nullable<Bpchar>,
        is_primary -> Bool,
        is_verified -> Bool,
        is_public -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
    }
}

diesel::table! {
    profiles (id) {
        id -> Uuid,
        user_id -> Uuid,
        display_name -> Varchar,
        first_name -> Nullable<Varchar>,
        last_name -> Nullable<Varchar>,
        gender -> Nullable<Varchar>,
        date_of_birth -> Nullable<Date>,
        bio -> Nullable<Varchar>,
        avatar_url -> Nullable<Varchar>,
        timezone -> Nullable<Varchar>,
        language -> Nullable<Bpchar>,
        country -> Nullable<Bpchar>,
        website -> Nullable<Varchar>,
        linkedin_url -> Nullable<Varchar>,
        twitter_url -> Nullable<Varchar>,
        github_url -> Nullable<Varchar>,
        is_public -> Bool,
        is_active -> Bool,
        is_banned -> Bool,
        is_verified -> Bool,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
    }
}

diesel::table! {
    api_keys (id) {
        id -> Uuid,
        user_id -> Uuid,
        name -> Varchar,
        prefix -> Varchar,
        key_hash -> Bytea,
        permissions -> Array<Text>,
        created_at -> Timestamptz,
        last_used_at -> Nullable<Timestamptz>,
        expires_at -> Nullable<Timestamptz>,
        revoked_at -> Nullable<Timestamptz>,
    }
}

diesel::joinable!(role_permissions -> roles (role_id));
diesel::joinable!(role_permissions -> permissions (permission_id));
diesel::joinable!(user_roles -> users (user_id));
diesel::joinable!(user_roles -> roles (role_id));
diesel::joinable!(contacts -> users (user_id));
diesel::joinable!(profiles -> users (user_id));
diesel::joinable!(api_keys -> users (user_id));

diesel::allow_tables_to_appear_in_same_query!(
    users,
    roles,
    permissions,
    role_permissions,
    user_roles,
    contacts,
    profiles,
    api_keys
);
