//! Each export resource's statement: its view's fields as typed columns, in the view's order (the
//! writers in `bulk_data` render them as the API does), its list filters, and its list's order
//! (newest first unless a sort is given; `id` last, so the order is total). An order comes as one
//! JSON object with its lines, its instants written as the API writes them (`tally_rfc3339`).
//!
//! Each WHERE clause is the list adapter's predicate written again (the export reads one snapshot
//! through a cursor, not the adapter's pages), over the list's indexes; a filter left out is a
//! `NULL` bind (`$n IS NULL OR …`), as the customers' and products' statements have it.

mod commerce;
mod crm;

pub use commerce::*;
pub use crm::*;

use postgres_toolkit::db::{contains_pattern, contains_pattern_lower};
use time::Date;

use super::exports::{Bind, ExportQuery, Records};

/// A sort key: the column (a fixed name, never client text), its direction, and whether its nulls
/// come last when it descends (PostgreSQL puts them first then; ascending, they are last anyway).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SortKey {
    pub column: &'static str,
    pub descending: bool,
    pub nulls_last: bool,
}

impl SortKey {
    pub const fn asc(column: &'static str) -> Self {
        Self { column, descending: false, nulls_last: false }
    }

    pub const fn desc(column: &'static str) -> Self {
        Self { column, descending: true, nulls_last: false }
    }

    pub const fn nulls_last(self) -> Self {
        Self { nulls_last: true, ..self }
    }
}

/// A view's fields: (name, SQL expression of a column type `exports::Fields` reads), in the view's
/// order.
type Fields = &'static [(&'static str, &'static str)];

fn columns(fields: Fields) -> String {
    fields.iter().map(|(_, expr)| *expr).collect::<Vec<_>>().join(", ")
}

/// `keys` on `alias`'s columns (newest first without keys), then `id DESC` unless the keys end with
/// `id` already (a list whose ties follow its sort's direction says so).
fn order_by(alias: &str, keys: &[SortKey]) -> String {
    let newest = [SortKey::desc("created_at")];
    let keys = if keys.is_empty() { &newest[..] } else { keys };
    let mut terms: Vec<String> = keys
        .iter()
        .map(|key| {
            let direction = if key.descending { "DESC" } else { "ASC" };
            let nulls = if key.nulls_last && key.descending { " NULLS LAST" } else { "" };
            format!("{alias}.{} {direction}{nulls}", key.column)
        })
        .collect();
    if keys.last().map(|key| key.column) != Some("id") {
        terms.push(format!("{alias}.id DESC"));
    }
    terms.join(", ")
}

/// A creation-date range as the lists read it (UTC days, both ends inclusive,
/// `order_postgres`' and `warehouse_postgres`' `list`): from the start of `from`, to before the
/// start of the day after `to`.
fn day_range(from: Option<Date>, to: Option<Date>) -> [Bind; 2] {
    [
        Bind::Instant(from.map(|day| day.midnight().assume_utc())),
        Bind::Instant(to.and_then(Date::next_day).map(|day| day.midnight().assume_utc())),
    ]
}

fn pattern(search: &Option<String>) -> Bind {
    Bind::Text(search.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(contains_pattern))
}

/// `search`'s pattern lower-cased, for a `lower(column) LIKE` that the column's trigram index serves.
fn lower_pattern(search: &Option<String>) -> Bind {
    Bind::Text(search.as_deref().map(str::trim).filter(|s| !s.is_empty()).map(contains_pattern_lower))
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
            (ExportResource::Customers, crm::CUSTOMER_FIELDS),
            (ExportResource::Companies, crm::COMPANY_FIELDS),
            (ExportResource::Deals, crm::DEAL_FIELDS),
            (ExportResource::Interactions, crm::INTERACTION_FIELDS),
            (ExportResource::Products, commerce::PRODUCT_FIELDS),
            (ExportResource::Inventory, commerce::INVENTORY_FIELDS),
            (ExportResource::StockMovements, commerce::MOVEMENT_FIELDS),
        ] {
            assert_eq!(names(fields), resource.csv_columns(), "{}", resource.as_str());
        }
    }
}
