//! Each export resource's statement: its view's fields as typed columns, in the view's order (the
//! writers in `bulk_data` render them as the API does), its list filters, and its list's order
//! (newest first unless a sort is given; `id` last, so the order is total). An order comes as one
//! JSON object with its lines, its instants written as the API writes them (`tally_rfc3339`).

use postgres_toolkit::db::contains_pattern;
use uuid::Uuid;

use super::exports::{Bind, ExportQuery, Records};

/// A sort key: the column (a fixed name, never client text) and whether it descends.
pub type SortKey = (&'static str, bool);

/// A view's fields: (name, SQL expression of a column type `exports::Fields` reads), in the view's
/// order.
type Fields = &'static [(&'static str, &'static str)];

fn columns(fields: Fields) -> String {
    fields.iter().map(|(_, expr)| *expr).collect::<Vec<_>>().join(", ")
}

fn order_by(alias: &str, sort: &[SortKey]) -> String {
    let mut keys: Vec<String> =
        sort.iter().map(|(column, desc)| format!("{alias}.{column} {}", if *desc { "DESC" } else { "ASC" })).collect();
    if keys.is_empty() {
        keys.push(format!("{alias}.created_at DESC"));
    }
    keys.push(format!("{alias}.id DESC"));
    keys.join(", ")
}

fn pattern(search: &Option<String>) -> Bind {
    Bind::Text(search.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(contains_pattern))
}

/// The customer list's filters (`GET /customer-mgmt/customers`), validated by the caller.
#[derive(Debug, Clone, Default)]
pub struct CustomerExport {
    pub status: Option<String>,
    pub tier: Option<String>,
    pub assigned_to: Option<Uuid>,
    pub tags: Vec<String>,
    /// `individual` or `company`.
    pub customer_type: Option<String>,
    pub search: Option<String>,
    pub sort: Vec<SortKey>,
}

const CUSTOMER_FIELDS: Fields = &[
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

pub fn customers(f: &CustomerExport) -> ExportQuery {
    ExportQuery {
        sql: format!(
            "SELECT {} FROM customers c \
             WHERE c.deleted_at IS NULL AND ($1::text IS NULL OR c.status = $1) \
               AND ($2::text IS NULL OR c.tier = $2) AND ($3::uuid IS NULL OR c.assigned_to = $3) \
               AND (cardinality($4::text[]) = 0 OR c.tags @> $4) \
               AND ($5::text IS NULL OR ($5 = 'company') = (c.company_id IS NOT NULL)) \
               AND ($6::text IS NULL OR c.name ILIKE $6 OR c.email ILIKE $6 OR c.phone ILIKE $6) \
             ORDER BY {}",
            columns(CUSTOMER_FIELDS),
            order_by("c", &f.sort)
        ),
        binds: vec![
            Bind::Text(f.status.clone()),
            Bind::Text(f.tier.clone()),
            Bind::Uuid(f.assigned_to),
            Bind::Texts(f.tags.clone()),
            Bind::Text(f.customer_type.clone()),
            pattern(&f.search),
        ],
        records: Records::Fields,
    }
}

const COMPANY_FIELDS: Fields = &[
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

/// The product list's filters (`GET /warehouse/products`), validated by the caller.
#[derive(Debug, Clone, Default)]
pub struct ProductExport {
    pub status: Option<String>,
    pub category: Option<String>,
    pub brand: Option<String>,
    pub search: Option<String>,
    pub sort: Vec<SortKey>,
}

const PRODUCT_FIELDS: Fields = &[
    ("id", "p.id"),
    ("sku", "p.sku"),
    ("name", "p.name"),
    ("description", "p.description"),
    ("category", "p.category"),
    ("brand", "p.brand"),
    ("weight_grams", "p.weight_grams"),
    ("length_mm", "p.length_mm"),
    ("width_mm", "p.width_mm"),
    ("height_mm", "p.height_mm"),
    ("price", "p.price"),
    ("currency", "p.currency"),
    ("status", "p.status"),
    ("created_at", "p.created_at"),
    ("updated_at", "p.updated_at"),
];

pub fn products(f: &ProductExport) -> ExportQuery {
    let exact =
        |v: &Option<String>| Bind::Text(v.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned));
    ExportQuery {
        sql: format!(
            "SELECT {} FROM products p \
             WHERE p.deleted_at IS NULL AND ($1::text IS NULL OR p.status = $1) \
               AND ($2::text IS NULL OR lower(p.category) = lower($2)) \
               AND ($3::text IS NULL OR lower(p.brand) = lower($3)) \
               AND ($4::text IS NULL OR p.sku ILIKE $4 OR p.name ILIKE $4) \
             ORDER BY {}",
            columns(PRODUCT_FIELDS),
            order_by("p", &f.sort)
        ),
        binds: vec![Bind::Text(f.status.clone()), exact(&f.category), exact(&f.brand), pattern(&f.search)],
        records: Records::Fields,
    }
}

const DEAL_FIELDS: Fields = &[
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

/// Every live deal, newest first.
pub fn deals() -> ExportQuery {
    plain(DEAL_FIELDS, "deals d WHERE d.deleted_at IS NULL", "d")
}

const INTERACTION_FIELDS: Fields = &[
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

/// Every live interaction, newest first.
pub fn interactions() -> ExportQuery {
    plain(INTERACTION_FIELDS, "interactions i WHERE i.deleted_at IS NULL", "i")
}

const INVENTORY_FIELDS: Fields = &[
    ("id", "v.id"),
    ("product_id", "v.product_id"),
    ("location_id", "v.location_id"),
    ("quantity_on_hand", "v.quantity_on_hand"),
    ("quantity_reserved", "v.quantity_reserved"),
    ("quantity_available", "v.quantity_on_hand - v.quantity_reserved"),
    ("quantity_committed", "v.quantity_committed"),
    ("reorder_point", "v.reorder_point"),
    ("min_stock", "v.min_stock"),
    ("max_stock", "v.max_stock"),
    ("created_at", "v.created_at"),
    ("updated_at", "v.updated_at"),
];

/// Every live inventory record, newest first.
pub fn inventory() -> ExportQuery {
    plain(INVENTORY_FIELDS, "inventory v WHERE v.deleted_at IS NULL", "v")
}

const MOVEMENT_FIELDS: Fields = &[
    ("id", "m.id"),
    ("inventory_id", "m.inventory_id"),
    ("product_id", "m.product_id"),
    ("location_id", "m.location_id"),
    ("type", "m.type"),
    ("quantity", "m.quantity"),
    ("quantity_before", "m.quantity_before"),
    ("quantity_after", "m.quantity_after"),
    ("reserved_before", "m.reserved_before"),
    ("reserved_after", "m.reserved_after"),
    ("unit_cost", "m.unit_cost"),
    ("total_cost", "m.total_cost"),
    ("currency", "m.currency"),
    ("reference_type", "m.reference_type"),
    ("reference_id", "m.reference_id"),
    ("reason", "m.reason"),
    ("created_by", "m.created_by"),
    ("created_at", "m.created_at"),
];

/// Every stock movement, newest first.
pub fn stock_movements() -> ExportQuery {
    plain(MOVEMENT_FIELDS, "stock_movements m", "m")
}

/// A resource without filters: `from` (table, alias and condition), newest first.
fn plain(fields: Fields, from: &str, alias: &str) -> ExportQuery {
    ExportQuery {
        sql: format!("SELECT {} FROM {from} ORDER BY {}", columns(fields), order_by(alias, &[])),
        binds: Vec::new(),
        records: Records::Fields,
    }
}

/// Every live order with its lines, newest first.
pub fn orders() -> ExportQuery {
    ExportQuery {
        sql: "SELECT json_build_object('id', o.id, 'order_number', o.order_number, 'customer_id', o.customer_id, \
                'company_id', o.company_id, 'status', o.status, 'currency', o.currency, 'subtotal', o.subtotal, \
                'tax', o.tax, 'discount', o.discount, 'total', o.total, 'notes', o.notes, \
                'reservation_status', o.reservation_status, 'reservation_error', o.reservation_error, \
                'confirmed_at', tally_rfc3339(o.confirmed_at), 'fulfilled_at', tally_rfc3339(o.fulfilled_at), \
                'cancelled_at', tally_rfc3339(o.cancelled_at), 'created_at', tally_rfc3339(o.created_at), \
                'updated_at', tally_rfc3339(o.updated_at), \
                'lines', coalesce((SELECT json_agg(json_build_object('id', l.id, 'order_id', l.order_id, \
                    'product_id', l.product_id, 'sku', l.sku, 'description', l.description, \
                    'quantity', l.quantity, 'unit_price', l.unit_price, 'subtotal', l.subtotal, \
                    'created_at', tally_rfc3339(l.created_at), 'updated_at', tally_rfc3339(l.updated_at)) \
                    ORDER BY l.created_at, l.id) FROM order_lines l WHERE l.order_id = o.id), '[]'::json))::text AS j \
              FROM orders o WHERE o.deleted_at IS NULL ORDER BY o.created_at DESC, o.id DESC"
            .to_owned(),
        binds: Vec::new(),
        records: Records::Json,
    }
}

#[cfg(test)]
mod tests {
    use bulk_data::ExportResource;

    use super::*;

    /// The writers name and render the fields by their place, so every statement reads exactly its
    /// resource's columns in their order.
    #[test]
    fn each_statement_reads_its_resources_columns_in_order() {
        let names = |fields: Fields| fields.iter().map(|(name, _)| (*name).to_owned()).collect::<Vec<_>>();
        for (resource, fields) in [
            (ExportResource::Customers, CUSTOMER_FIELDS),
            (ExportResource::Companies, COMPANY_FIELDS),
            (ExportResource::Products, PRODUCT_FIELDS),
            (ExportResource::Deals, DEAL_FIELDS),
            (ExportResource::Interactions, INTERACTION_FIELDS),
            (ExportResource::Inventory, INVENTORY_FIELDS),
            (ExportResource::StockMovements, MOVEMENT_FIELDS),
        ] {
            assert_eq!(names(fields), resource.csv_columns(), "{}", resource.as_str());
        }
    }
}
