//! The resources an export streams (docs/imports-and-exports.md), their CSV columns and the file's name.

use time::Date;

use crate::schema::{Format, ImportResource};
use crate::write::LINE_PREFIX;

/// `GET /api/v1/exports/{resource}`'s resources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExportResource {
    /// `customers`
    Customers,
    /// `companies`
    Companies,
    /// `deals`
    Deals,
    /// `interactions`
    Interactions,
    /// `orders` (CSV: one row a line, see [`crate::write::order_csv_rows`])
    Orders,
    /// `products`
    Products,
    /// `inventory`
    Inventory,
    /// `stock-movements`
    StockMovements,
}

const DEALS: &[&str] = &[
    "id",
    "customer_id",
    "assigned_to",
    "name",
    "value",
    "currency",
    "stage",
    "probability",
    "source",
    "expected_close_date",
    "actual_close_date",
    "loss_reason",
    "tags",
    "created_at",
    "updated_at",
];

const INTERACTIONS: &[&str] = &[
    "id",
    "customer_id",
    "company_id",
    "type",
    "direction",
    "outcome",
    "subject",
    "description",
    "created_by",
    "attendees",
    "started_at",
    "ended_at",
    "duration_sec",
    "follow_up_required",
    "follow_up_date",
    "follow_up_notes",
    "created_at",
    "updated_at",
];

const ORDERS: &[&str] = &[
    "id",
    "order_number",
    "customer_id",
    "company_id",
    "status",
    "currency",
    "subtotal",
    "tax",
    "discount",
    "total",
    "notes",
    "reservation_status",
    "reservation_error",
    "confirmed_at",
    "fulfilled_at",
    "cancelled_at",
    "created_at",
    "updated_at",
];

/// An order line's fields in an order's CSV rows (each prefixed [`LINE_PREFIX`]); the line's
/// `order_id` is the order's `id` and is not repeated.
const ORDER_LINES: &[&str] =
    &["id", "product_id", "sku", "description", "quantity", "unit_price", "subtotal", "created_at", "updated_at"];

const STOCK_MOVEMENTS: &[&str] = &[
    "id",
    "inventory_id",
    "product_id",
    "location_id",
    "type",
    "quantity",
    "quantity_before",
    "quantity_after",
    "reserved_before",
    "reserved_after",
    "unit_cost",
    "total_cost",
    "currency",
    "reference_type",
    "reference_id",
    "reason",
    "created_by",
    "created_at",
];

impl ExportResource {
    /// Every export resource.
    pub const ALL: [ExportResource; 8] = [
        Self::Customers,
        Self::Companies,
        Self::Deals,
        Self::Interactions,
        Self::Orders,
        Self::Products,
        Self::Inventory,
        Self::StockMovements,
    ];

    /// The resource named in the path (exact spelling).
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|r| r.as_str() == name)
    }

    /// Its name in the path and the file name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Customers => "customers",
            Self::Companies => "companies",
            Self::Deals => "deals",
            Self::Interactions => "interactions",
            Self::Orders => "orders",
            Self::Products => "products",
            Self::Inventory => "inventory",
            Self::StockMovements => "stock-movements",
        }
    }

    /// The import resource of the same name, for the four both ways.
    pub fn importable(self) -> Option<ImportResource> {
        ImportResource::parse(self.as_str())
    }

    /// The CSV header: the fields of the resource's view in their order (an import resource's are
    /// its schema's exported columns; an order's are followed by its lines' `line_…` fields).
    pub fn csv_columns(self) -> Vec<String> {
        let plain = |names: &[&str]| names.iter().map(|n| (*n).to_owned()).collect();
        match self {
            Self::Deals => plain(DEALS),
            Self::Interactions => plain(INTERACTIONS),
            Self::StockMovements => plain(STOCK_MOVEMENTS),
            Self::Orders => ORDERS
                .iter()
                .map(|n| (*n).to_owned())
                .chain(ORDER_LINES.iter().map(|n| format!("{LINE_PREFIX}{n}")))
                .collect(),
            Self::Customers | Self::Companies | Self::Products | Self::Inventory => {
                self.importable().map(|r| r.schema().export_columns().map(str::to_owned).collect()).unwrap_or_default()
            }
        }
    }

    /// `<resource>-<YYYY-MM-DD>.<csv|jsonl>`, for `Content-Disposition`.
    pub fn file_name(self, format: Format, today: Date) -> String {
        format!(
            "{}-{:04}-{:02}-{:02}.{}",
            self.as_str(),
            today.year(),
            u8::from(today.month()),
            today.day(),
            format.as_str()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn every_export_resource_has_columns_and_a_name() {
        for resource in ExportResource::ALL {
            assert_eq!(ExportResource::parse(resource.as_str()), Some(resource));
            let columns = resource.csv_columns();
            assert_eq!(columns.first().map(String::as_str), Some("id"), "{}", resource.as_str());
            for (i, c) in columns.iter().enumerate() {
                assert!(!columns[..i].contains(c), "{c} twice in {}", resource.as_str());
            }
        }
        assert_eq!(
            ExportResource::StockMovements.file_name(Format::Csv, date!(2026 - 03 - 01)),
            "stock-movements-2026-03-01.csv"
        );
        assert_eq!(ExportResource::Orders.csv_columns().last().map(String::as_str), Some("line_updated_at"));
        assert_eq!(ExportResource::Deals.importable(), None);
        assert_eq!(ExportResource::Inventory.importable(), Some(ImportResource::Inventory));
    }
}
