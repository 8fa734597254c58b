//! Diesel tables of customer management, kept in step with `migrations/…_crm` by hand.

diesel::table! {
    companies (id) {
        id -> Uuid,
        name -> Varchar,
        website -> Nullable<Varchar>,
        industry -> Nullable<Varchar>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
    }
}

diesel::table! {
    customers (id) {
        id -> Uuid,
        user_id -> Nullable<Uuid>,
        company_id -> Nullable<Uuid>,
        name -> Varchar,
        email -> Varchar,
        phone -> Nullable<Varchar>,
        status -> Varchar,
        tier -> Varchar,
        /// Generated: the lifecycle order of `status` (read-only).
        status_rank -> Int2,
        /// Generated: the order of `tier` (read-only).
        tier_rank -> Int2,
        source -> Nullable<Varchar>,
        assigned_to -> Nullable<Uuid>,
        tags -> Array<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        churned_at -> Nullable<Timestamptz>,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
        /// Generated: `lower(name)`, `email` and `phone` joined by U+001F, what a search reads
        /// (migration `…_customer_search_text`; read-only).
        search_text -> Text,
    }
}

diesel::table! {
    customer_status_history (id) {
        id -> Int8,
        customer_id -> Uuid,
        from_status -> Nullable<Varchar>,
        to_status -> Varchar,
        reason -> Nullable<Text>,
        changed_at -> Timestamptz,
    }
}

diesel::table! {
    deals (id) {
        id -> Uuid,
        customer_id -> Uuid,
        assigned_to -> Uuid,
        name -> Varchar,
        value -> Int8,
        currency -> Bpchar,
        stage -> Varchar,
        probability -> Int2,
        source -> Varchar,
        expected_close_date -> Date,
        actual_close_date -> Nullable<Date>,
        loss_reason -> Nullable<Text>,
        tags -> Array<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
    }
}

diesel::table! {
    deal_stage_history (id) {
        id -> Int8,
        deal_id -> Uuid,
        from_stage -> Nullable<Varchar>,
        to_stage -> Varchar,
        changed_at -> Timestamptz,
    }
}

diesel::table! {
    interactions (id) {
        id -> Uuid,
        customer_id -> Uuid,
        company_id -> Nullable<Uuid>,
        #[sql_name = "type"]
        interaction_type -> Varchar,
        direction -> Varchar,
        outcome -> Nullable<Varchar>,
        subject -> Varchar,
        description -> Nullable<Text>,
        created_by -> Uuid,
        attendees -> Array<Uuid>,
        started_at -> Timestamptz,
        ended_at -> Nullable<Timestamptz>,
        duration_sec -> Nullable<Int8>,
        follow_up_required -> Bool,
        follow_up_date -> Nullable<Timestamptz>,
        follow_up_notes -> Nullable<Text>,
        created_at -> Timestamptz,
        updated_at -> Timestamptz,
        deleted_at -> Nullable<Timestamptz>,
        version -> Int8,
    }
}

diesel::table! {
    /// Each tag of every non-deleted customer with the customer's status rank and creation time:
    /// written only by the triggers of migrations `…_customer_tags` and `…_customer_tags_newest`, read
    /// to count tag filters and to page them newest first (`customers::OneTag`).
    customer_tags (customer_id, tag) {
        customer_id -> Uuid,
        tag -> Text,
        status_rank -> Int2,
        created_at -> Timestamptz,
    }
}

diesel::allow_tables_to_appear_in_same_query!(
    companies,
    customers,
    customer_tags,
    customer_status_history,
    deals,
    deal_stage_history,
    interactions,
);
