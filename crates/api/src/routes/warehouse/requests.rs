//! Request bodies and list queries of the warehouse endpoints.
//!
//! The `#[schema]`/`#[param]` bounds state the rules the handlers and `warehouse_domain` check, so
//! that a request valid against the document passes validation. Text is checked once trimmed
//! (`warehouse_domain::text`): the text patterns allow white space (as `str::trim` removes it) at
//! either end and no control character inside; required text needs a non-blank character, optional
//! text may be blank (absent). The enums below exist only for the document; the handlers still read
//! `String`s.

use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Document-only: `ProductStatus` as the document lists it; `ProductStatus::parse` also takes any case.
#[derive(ToSchema)]
#[schema(description = "A product status (matched case-insensitively).", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum ProductStatusName {
    Active,
    Discontinued,
}

/// Document-only: `ProductSort::parse`'s keys, exactly (case-sensitive).
#[derive(ToSchema)]
#[schema(description = "A sort key; a leading `-` sorts descending.")]
#[allow(dead_code)]
pub enum ProductSortKey {
    #[schema(rename = "name")]
    Name,
    #[schema(rename = "-name")]
    NameDesc,
    #[schema(rename = "sku")]
    Sku,
    #[schema(rename = "-sku")]
    SkuDesc,
    #[schema(rename = "price")]
    Price,
    #[schema(rename = "-price")]
    PriceDesc,
    #[schema(rename = "created_at")]
    CreatedAt,
    #[schema(rename = "-created_at")]
    CreatedAtDesc,
}

/// Document-only: `LocationType` as the document lists it; `LocationType::parse` also takes any case.
#[derive(ToSchema)]
#[schema(description = "A location type (matched case-insensitively).")]
#[allow(dead_code)]
pub enum LocationTypeName {
    Warehouse,
    Retail,
    Dropship,
    Virtual,
}

/// Document-only: every `MovementType`, for filters; `MovementType::parse` also takes any case.
#[derive(ToSchema)]
#[schema(description = "A stock movement type (matched case-insensitively).")]
#[allow(dead_code)]
pub enum MovementTypeName {
    Receipt,
    Reservation,
    ReservationRelease,
    Commit,
    Adjustment,
    Transfer,
    Damage,
    Return,
}

/// Document-only: the `MovementType`s `POST /stock-movements` performs (`MovementType::can_be_posted`).
#[derive(ToSchema)]
#[schema(description = "A movement type that can be posted (matched case-insensitively).")]
#[allow(dead_code)]
pub enum PostableMovementTypeName {
    Receipt,
    Adjustment,
    Damage,
    Return,
}

/// Document-only: `ReferenceType` as the document lists it; `ReferenceType::parse` also takes any case.
#[derive(ToSchema)]
#[schema(description = "What a receipt refers to (matched case-insensitively).", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum ReferenceTypeName {
    Order,
    PurchaseOrder,
    Transfer,
    Manual,
}

/// Create and `PUT` (which replaces every editable field).
#[derive(Debug, Deserialize, ToSchema)]
pub struct ProductBody {
    /// Unique among live products, case-insensitively.
    #[schema(min_length = 1, max_length = 64, format = "non-blank-line")]
    pub sku: String,
    #[schema(min_length = 1, max_length = 255, format = "non-blank-line")]
    pub name: String,
    #[schema(max_length = 5000, format = "text-line")]
    pub description: Option<String>,
    #[schema(max_length = 100, format = "text-line")]
    pub category: Option<String>,
    #[schema(max_length = 100, format = "text-line")]
    pub brand: Option<String>,
    #[schema(minimum = 0)]
    pub weight_grams: Option<i64>,
    #[schema(minimum = 0)]
    pub length_mm: Option<i64>,
    #[schema(minimum = 0)]
    pub width_mm: Option<i64>,
    #[schema(minimum = 0)]
    pub height_mm: Option<i64>,
    /// Cents; needs `currency`.
    #[schema(minimum = 0)]
    pub price: Option<i64>,
    /// An active ISO 4217 code.
    #[schema(format = "currency-code", example = "USD")]
    pub currency: Option<String>,
    /// The preferred supplier (reorder suggestions draft purchase orders for it).
    pub supplier_id: Option<Uuid>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProductListQuery {
    #[param(inline, value_type = Option<ProductStatusName>)]
    pub status: Option<String>,
    /// Exact, case-insensitive.
    pub category: Option<String>,
    /// Exact, case-insensitive.
    pub brand: Option<String>,
    /// Case-insensitive substring of SKU or name.
    #[serde(default, deserialize_with = "crate::routes::query_params::bounded_search")]
    #[param(max_length = 200)]
    pub search: Option<String>,
    /// Default `-created_at`.
    #[param(inline, value_type = Option<ProductSortKey>)]
    pub sort: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AddressBody {
    #[schema(max_length = 255, format = "text-line")]
    pub street: Option<String>,
    #[schema(max_length = 255, format = "text-line")]
    pub city: Option<String>,
    #[schema(max_length = 255, format = "text-line")]
    pub state: Option<String>,
    #[schema(max_length = 20, format = "text-line")]
    pub postal_code: Option<String>,
    /// Must equal `country` when given.
    #[schema(format = "country-code", example = "UA")]
    pub country: Option<String>,
}

/// Create and `PUT` (which replaces every editable field).
#[derive(Debug, Deserialize, ToSchema)]
pub struct LocationBody {
    /// Unique among live locations, case-insensitively.
    #[schema(min_length = 1, max_length = 64, format = "non-blank-line")]
    pub code: String,
    #[schema(min_length = 1, max_length = 255, format = "non-blank-line")]
    pub name: String,
    #[serde(rename = "type")]
    #[schema(value_type = LocationTypeName)]
    pub location_type: String,
    pub address: Option<AddressBody>,
    /// An ISO 3166-1 alpha-2 code present in the reference data.
    #[schema(format = "country-code", example = "UA")]
    pub country: String,
    /// ≥ 0; absent means unlimited.
    #[schema(minimum = 0)]
    pub capacity: Option<i64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LocationListQuery {
    /// 1-based page number (default 1).
    #[param(minimum = 1, maximum = 4294967295_u32)]
    pub page: Option<i64>,
    /// Items per page, 1..=100 (default 20).
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<i64>,
    #[serde(rename = "type")]
    #[param(value_type = Option<LocationTypeName>)]
    pub location_type: Option<String>,
    /// An ISO 3166-1 alpha-2 code present in the reference data.
    #[param(format = "country-code", example = "UA")]
    pub country: Option<String>,
    pub is_active: Option<bool>,
    /// Case-insensitive substring of code or name.
    #[serde(default, deserialize_with = "crate::routes::query_params::bounded_search")]
    #[param(max_length = 200)]
    pub search: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateInventoryBody {
    pub product_id: Uuid,
    pub location_id: Uuid,
    /// Initial stock, recorded as a Receipt.
    #[schema(minimum = 0, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity_on_hand: Option<i64>,
    #[schema(minimum = 0)]
    pub reorder_point: Option<i64>,
    /// Not above `max_stock`.
    #[schema(minimum = 0)]
    pub min_stock: Option<i64>,
    #[schema(minimum = 0)]
    pub max_stock: Option<i64>,
}

/// `PUT /inventory/:id`: only the thresholds (each replaced; absent clears it).
#[derive(Debug, Deserialize, ToSchema)]
pub struct ThresholdsBody {
    #[schema(minimum = 0)]
    pub reorder_point: Option<i64>,
    /// Not above `max_stock`.
    #[schema(minimum = 0)]
    pub min_stock: Option<i64>,
    #[schema(minimum = 0)]
    pub max_stock: Option<i64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct InventoryListQuery {
    #[param(format = Uuid)]
    pub product_id: Option<String>,
    #[param(format = Uuid)]
    pub location_id: Option<String>,
    /// Only records whose available stock is at or below the reorder point.
    pub low_stock: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ReceiveBody {
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: i64,
    /// Cents per unit, in `currency`; without it, in the product's currency, else `REPORTING_CURRENCY`.
    #[schema(minimum = 0)]
    pub unit_cost: Option<i64>,
    /// An active ISO 4217 code.
    #[schema(format = "currency-code", example = "USD")]
    pub currency: Option<String>,
    /// Default manual.
    #[schema(value_type = Option<ReferenceTypeName>)]
    pub reference_type: Option<String>,
    pub reference_id: Option<Uuid>,
    #[schema(max_length = 500, format = "text-line")]
    pub reason: Option<String>,
}

/// `/reserve`, `/release`, `/commit`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct OrderQuantityBody {
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: i64,
    /// A reference; it need not name an order of this service.
    pub order_id: Uuid,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AdjustBody {
    /// ≠ 0; negative lowers on hand (never below reserved).
    #[schema(minimum = -9223372036854775807_i64, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity_delta: i64,
    #[schema(min_length = 1, max_length = 500, format = "non-blank-line")]
    pub reason: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct TransferBody {
    /// Another location than the record's.
    pub to_location_id: Uuid,
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: i64,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct DamageBody {
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: i64,
    #[schema(min_length = 1, max_length = 500, format = "non-blank-line")]
    pub reason: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ReturnBody {
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: i64,
    pub order_id: Option<Uuid>,
    #[schema(max_length = 500, format = "text-line")]
    pub reason: Option<String>,
}

/// `POST /stock-movements`: performs the operation of `type` with that operation's fields.
#[derive(Debug, Deserialize, ToSchema)]
pub struct MovementBody {
    pub inventory_id: Uuid,
    #[serde(rename = "type")]
    #[schema(value_type = PostableMovementTypeName)]
    pub movement_type: String,
    /// Required for Receipt, Damage, Return (for Adjustment, `quantity_delta`).
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: Option<i64>,
    /// Required for Adjustment; ≠ 0.
    #[schema(minimum = -9223372036854775807_i64, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity_delta: Option<i64>,
    /// Required (not blank) for Adjustment and Damage.
    #[schema(max_length = 500, format = "text-line")]
    pub reason: Option<String>,
    /// Receipt: cents per unit, in `currency` (default: the product's, else `REPORTING_CURRENCY`).
    #[schema(minimum = 0)]
    pub unit_cost: Option<i64>,
    /// Receipt: an active ISO 4217 code.
    #[schema(format = "currency-code", example = "USD")]
    pub currency: Option<String>,
    /// Receipt (default manual).
    #[schema(value_type = Option<ReferenceTypeName>)]
    pub reference_type: Option<String>,
    /// Receipt; for Return, used when `order_id` is absent.
    pub reference_id: Option<Uuid>,
    /// Return.
    pub order_id: Option<Uuid>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MovementListQuery {
    #[serde(rename = "type")]
    #[param(inline, value_type = Option<MovementTypeName>)]
    pub movement_type: Option<String>,
    #[param(format = Uuid)]
    pub inventory_id: Option<String>,
    #[param(format = Uuid)]
    pub product_id: Option<String>,
    #[param(format = Uuid)]
    pub location_id: Option<String>,
    #[param(format = Uuid)]
    pub reference_id: Option<String>,
    /// Inclusive; years 1900..=2200; not after `date_to`.
    #[param(format = Date, pattern = "^(19[0-9]{2}|2[01][0-9]{2}|2200)-[0-9]{2}-[0-9]{2}$")]
    pub date_from: Option<String>,
    /// Inclusive; years 1900..=2200.
    #[param(format = Date, pattern = "^(19[0-9]{2}|2[01][0-9]{2}|2200)-[0-9]{2}-[0-9]{2}$")]
    pub date_to: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RecentQuery {
    /// Default 50.
    #[param(minimum = 1, maximum = 100)]
    pub limit: Option<i64>,
}
