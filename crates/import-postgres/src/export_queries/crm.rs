//! The customer-management resources' statements: customers, companies, deals, interactions.

use uuid::Uuid;

use super::{columns, order_by, pattern, Bind, ExportQuery, Fields, Records, SortKey};

/// The customer list's filters (`GET /customer-mgmt/customers`), validated by the caller.
#[derive(Debug, Clone, Default)]
pub struct CustomerExport {
    /// The status's place in `CustomerStatus::ALL` (the generated `status_rank`).
    pub status_rank: Option<i16>,
    /// The tier's place in `Tier::ALL` (the generated `tier_rank`).
    pub tier_rank: Option<i16>,
    pub assigned_to: Option<Uuid>,
    pub tags: Vec<String>,
    /// `individual` or `company`.
    pub customer_type: Option<String>,
    pub search: Option<String>,
    pub sort: Vec<SortKey>,
}

pub(super) const CUSTOMER_FIELDS: Fields = &[
    ("id", "c.id"),
    ("user_id", "c.user_id"),
    ("company_id", "c.company_id"),
    ("type", "CASE WHEN c.company_id IS NULL THEN 'individual' ELSE 'company' END"),
    ("name", "c.name"),
    ("email", "c.email"),
    ("phone", "c.phone"),
    ("status", "c.status"),
    ("tier", "c.tier"),
    ("source", "c.source"),
    ("assigned_to", "c.assigned_to"),
    ("tags", "c.tags"),
    ("created_at", "c.created_at"),
    ("updated_at", "c.updated_at"),
    ("churned_at", "c.churned_at"),
];

/// The list adapter's predicate (`crm_postgres::customers`): status and tier by their rank columns,
/// tags only among tagged customers, and the search over `search_text` (the lower-cased name, the
/// email and the phone, one trigram index), each field checked alone too when the text holds the
/// separator between them.
pub fn customers(f: &CustomerExport) -> ExportQuery {
    ExportQuery {
        sql: format!(
            "SELECT {} FROM customers c \
             WHERE c.deleted_at IS NULL AND ($1::smallint IS NULL OR c.status_rank = $1) \
               AND ($2::smallint IS NULL OR c.tier_rank = $2) AND ($3::uuid IS NULL OR c.assigned_to = $3) \
               AND (cardinality($4::text[]) = 0 OR (c.tags @> $4 AND cardinality(c.tags) > 0)) \
               AND ($5::text IS NULL OR ($5 = 'company') = (c.company_id IS NOT NULL)) \
               AND ($6::text IS NULL OR (c.search_text LIKE lower($6) AND (strpos($6, chr(31)) = 0 \
                    OR c.name ILIKE $6 OR c.email LIKE lower($6) OR c.phone LIKE $6))) \
             ORDER BY {}",
            columns(CUSTOMER_FIELDS),
            order_by("c", &f.sort)
        ),
        binds: vec![
            Bind::Rank(f.status_rank),
            Bind::Rank(f.tier_rank),
            Bind::Uuid(f.assigned_to),
            Bind::Texts(f.tags.clone()),
            Bind::Text(f.customer_type.clone()),
            pattern(&f.search),
        ],
        records: Records::Fields,
    }
}

pub(super) const COMPANY_FIELDS: Fields = &[
    ("id", "c.id"),
    ("name", "c.name"),
    ("website", "c.website"),
    ("industry", "c.industry"),
    ("created_at", "c.created_at"),
    ("updated_at", "c.updated_at"),
];

/// Companies, by the company list's `search` (a substring of the name).
pub fn companies(search: &Option<String>) -> ExportQuery {
    ExportQuery {
        sql: format!(
            "SELECT {} FROM companies c WHERE c.deleted_at IS NULL AND ($1::text IS NULL OR c.name ILIKE $1) \
             ORDER BY c.created_at DESC, c.id DESC",
            columns(COMPANY_FIELDS)
        ),
        binds: vec![pattern(search)],
        records: Records::Fields,
    }
}

pub(super) const DEAL_FIELDS: Fields = &[
    ("id", "d.id"),
    ("customer_id", "d.customer_id"),
    ("assigned_to", "d.assigned_to"),
    ("name", "d.name"),
    ("value", "d.value"),
    ("currency", "d.currency"),
    ("stage", "d.stage"),
    ("probability", "d.probability"),
    ("source", "d.source"),
    ("expected_close_date", "d.expected_close_date"),
    ("actual_close_date", "d.actual_close_date"),
    ("loss_reason", "d.loss_reason"),
    ("tags", "d.tags"),
    ("created_at", "d.created_at"),
    ("updated_at", "d.updated_at"),
];

/// The deal list's filters (`GET /customer-mgmt/deals`), validated by the caller.
#[derive(Debug, Clone, Default)]
pub struct DealExport {
    /// A stage's stored name.
    pub stage: Option<String>,
    pub customer_id: Option<Uuid>,
    pub assigned_to: Option<Uuid>,
}

/// Deals as `crm_postgres::deals`' `list` selects them, newest first (`deals_stage_idx`,
/// `deals_customer_idx`, `deals_assigned_idx`, `deals_list_idx`).
pub fn deals(f: &DealExport) -> ExportQuery {
    ExportQuery {
        sql: format!(
            "SELECT {} FROM deals d \
             WHERE d.deleted_at IS NULL AND ($1::text IS NULL OR d.stage = $1) \
               AND ($2::uuid IS NULL OR d.customer_id = $2) AND ($3::uuid IS NULL OR d.assigned_to = $3) \
             ORDER BY {}",
            columns(DEAL_FIELDS),
            order_by("d", &[])
        ),
        binds: vec![Bind::Text(f.stage.clone()), Bind::Uuid(f.customer_id), Bind::Uuid(f.assigned_to)],
        records: Records::Fields,
    }
}

pub(super) const INTERACTION_FIELDS: Fields = &[
    ("id", "i.id"),
    ("customer_id", "i.customer_id"),
    ("company_id", "i.company_id"),
    ("type", "i.type"),
    ("direction", "i.direction"),
    ("outcome", "i.outcome"),
    ("subject", "i.subject"),
    ("description", "i.description"),
    ("created_by", "i.created_by"),
    ("attendees", "i.attendees"),
    ("started_at", "i.started_at"),
    ("ended_at", "i.ended_at"),
    ("duration_sec", "i.duration_sec"),
    ("follow_up_required", "i.follow_up_required"),
    ("follow_up_date", "i.follow_up_date"),
    ("follow_up_notes", "i.follow_up_notes"),
    ("created_at", "i.created_at"),
    ("updated_at", "i.updated_at"),
];

/// Every live interaction in the interaction list's order: the latest `started_at` first
/// (`crm_postgres::interactions`' `list`, `interactions_list_idx`). The list takes no filter.
pub fn interactions() -> ExportQuery {
    ExportQuery {
        sql: format!(
            "SELECT {} FROM interactions i WHERE i.deleted_at IS NULL ORDER BY {}",
            columns(INTERACTION_FIELDS),
            order_by("i", &[SortKey::desc("started_at")])
        ),
        binds: Vec::new(),
        records: Records::Fields,
    }
}
