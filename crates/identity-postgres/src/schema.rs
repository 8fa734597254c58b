//! Diesel table definitions of the identity context's tables, kept in step with `migrations/` by
//! hand and checked by the schema test in `tests/`.

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
