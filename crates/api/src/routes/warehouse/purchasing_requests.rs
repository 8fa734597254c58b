//! Request bodies and list queries of suppliers, purchase orders, transfers and reorder
//! suggestions (docs/purchasing-and-transfers.md). As in `requests.rs`, the `#[schema]` bounds state
//! the rules `warehouse_domain` checks, so that a body valid against the document passes them.

use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

use crate::routes::crm::wire::present;

/// Document-only: a purchase order's status (matched case-insensitively).
#[derive(ToSchema)]
#[schema(description = "A purchase order status (matched case-insensitively).", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum PurchaseOrderStatusName {
    Draft,
    Ordered,
    PartiallyReceived,
    Received,
    Cancelled,
    Closed,
}

/// Document-only: a transfer's status (matched case-insensitively).
#[derive(ToSchema)]
#[schema(description = "A transfer status (matched case-insensitively).", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum TransferStatusName {
    Draft,
    InTransit,
    Received,
    Cancelled,
}

/// `POST /suppliers`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SupplierBody {
    #[schema(min_length = 1, max_length = 255, format = "non-blank-line")]
    pub name: String,
    #[schema(max_length = 255)]
    pub email: Option<String>,
    /// `+`, a country code and a valid number; stored in E.164 form.
    #[schema(max_length = 50)]
    pub phone: Option<String>,
    /// An active ISO 4217 code.
    #[schema(format = "currency-code", example = "EUR")]
    pub currency: Option<String>,
    #[schema(minimum = 0, maximum = 365)]
    pub lead_time_days: Option<i64>,
    #[schema(max_length = 5000)]
    pub notes: Option<String>,
    /// Default true.
    pub is_active: Option<bool>,
}

/// `PUT /suppliers/{id}`: any subset of the create fields; `null` clears an optional one.
#[derive(Debug, Deserialize, ToSchema)]
pub struct SupplierChangesBody {
    #[schema(min_length = 1, max_length = 255, format = "non-blank-line")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 255)]
    pub email: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 50)]
    pub phone: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, format = "currency-code", example = "EUR")]
    pub currency: Option<Option<String>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<i64>, minimum = 0, maximum = 365)]
    pub lead_time_days: Option<Option<i64>>,
    #[serde(default, deserialize_with = "present")]
    #[schema(value_type = Option<String>, max_length = 5000)]
    pub notes: Option<Option<String>>,
    pub is_active: Option<bool>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SupplierListQuery {
    /// 1-based page number (default 1).
    #[param(minimum = 1, maximum = 4294967295_u32)]
    pub page: Option<i64>,
    /// Items per page, 1..=100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<i64>,
    /// Case-insensitive substring of name or email.
    #[serde(default, deserialize_with = "crate::routes::query_params::bounded_search")]
    #[param(max_length = 200)]
    pub search: Option<String>,
    pub is_active: Option<bool>,
}

/// A purchase order line to add.
#[derive(Debug, Deserialize, ToSchema)]
pub struct PurchaseLineBody {
    pub product_id: Uuid,
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: i64,
    /// Cents of the purchase order's currency per unit.
    #[schema(minimum = 0)]
    pub unit_cost: i64,
}

/// `POST /purchase-orders`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct PurchaseOrderBody {
    pub supplier_id: Uuid,
    pub location_id: Uuid,
    /// An active ISO 4217 code.
    #[schema(format = "currency-code", example = "EUR")]
    pub currency: String,
    /// RFC 3339; years 1900..=2200.
    #[schema(format = DateTime)]
    pub expected_at: Option<String>,
    #[schema(max_length = 5000)]
    pub notes: Option<String>,
    #[schema(max_items = 200)]
    pub lines: Option<Vec<PurchaseLineBody>>,
}

/// `PUT /purchase-orders/{id}/lines/{line_id}`: absent fields stay.
#[derive(Debug, Deserialize, ToSchema)]
pub struct PurchaseLineChangesBody {
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: Option<i64>,
    #[schema(minimum = 0)]
    pub unit_cost: Option<i64>,
}

/// One line of a receipt.
#[derive(Debug, Deserialize, ToSchema)]
pub struct ReceiveLineBody {
    pub line_id: Uuid,
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: i64,
}

/// `POST /purchase-orders/{id}/receive`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct PurchaseReceiveBody {
    /// At least one line, each named once.
    #[schema(min_items = 1, max_items = 200)]
    pub lines: Vec<ReceiveLineBody>,
    #[schema(max_length = 500)]
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PurchaseOrderListQuery {
    /// 1-based page number (default 1).
    #[param(minimum = 1, maximum = 4294967295_u32)]
    pub page: Option<i64>,
    /// Items per page, 1..=100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<i64>,
    #[param(inline, value_type = Option<PurchaseOrderStatusName>)]
    pub status: Option<String>,
    #[param(format = Uuid)]
    pub supplier_id: Option<String>,
    #[param(format = Uuid)]
    pub location_id: Option<String>,
    /// Created on or after this day; years 1900..=2200; not after `date_to`.
    #[param(format = Date, pattern = "^(19[0-9]{2}|2[01][0-9]{2}|2200)-[0-9]{2}-[0-9]{2}$")]
    pub date_from: Option<String>,
    /// Created on or before this day; years 1900..=2200.
    #[param(format = Date, pattern = "^(19[0-9]{2}|2[01][0-9]{2}|2200)-[0-9]{2}-[0-9]{2}$")]
    pub date_to: Option<String>,
}

/// `POST /purchase-orders/from-suggestions`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct FromSuggestionsBody {
    pub location_id: Uuid,
    /// Only this supplier's products.
    pub supplier_id: Option<Uuid>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SuggestionQuery {
    /// 1-based page number (default 1).
    #[param(minimum = 1, maximum = 4294967295_u32)]
    pub page: Option<i64>,
    /// Items per page, 1..=100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<i64>,
    #[param(format = Uuid)]
    pub location_id: Option<String>,
    #[param(format = Uuid)]
    pub supplier_id: Option<String>,
}

/// A transfer line.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TransferLineBody {
    pub product_id: Uuid,
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: i64,
}

/// `POST /transfers`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct TransferDocumentBody {
    pub from_location_id: Uuid,
    /// Not the source.
    pub to_location_id: Uuid,
    /// At least one line, one per product.
    #[schema(min_items = 1, max_items = 200)]
    pub lines: Vec<TransferLineBody>,
    #[schema(max_length = 5000)]
    pub notes: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TransferListQuery {
    /// 1-based page number (default 1).
    #[param(minimum = 1, maximum = 4294967295_u32)]
    pub page: Option<i64>,
    /// Items per page, 1..=100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<i64>,
    #[param(inline, value_type = Option<TransferStatusName>)]
    pub status: Option<String>,
    #[param(format = Uuid)]
    pub from_location_id: Option<String>,
    #[param(format = Uuid)]
    pub to_location_id: Option<String>,
}
