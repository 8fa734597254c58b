//! Request bodies and list queries of the warehouse endpoints.

use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Create and `PUT` (which replaces every editable field).
#[derive(Debug, Deserialize, ToSchema)]
pub struct ProductBody {
    pub sku: String,
    pub name: String,
    pub description: Option<String>,
    pub category: Option<String>,
    pub brand: Option<String>,
    pub weight_grams: Option<i64>,
    pub length_mm: Option<i64>,
    pub width_mm: Option<i64>,
    pub height_mm: Option<i64>,
    /// Cents; needs `currency`.
    pub price: Option<i64>,
    /// An active ISO 4217 code.
    pub currency: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ProductListQuery {
    pub page: Option<i64>,
    pub page_size: Option<i64>,
    /// active or discontinued.
    pub status: Option<String>,
    /// Exact, case-insensitive.
    pub category: Option<String>,
    /// Exact, case-insensitive.
    pub brand: Option<String>,
    /// Case-insensitive substring of SKU or name.
    pub search: Option<String>,
    /// name, sku, price or created_at; a leading `-` sorts descending (default `-created_at`).
    pub sort: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AddressBody {
    pub street: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    /// Must equal `country` when given.
    pub country: Option<String>,
}

/// Create and `PUT` (which replaces every editable field).
#[derive(Debug, Deserialize, ToSchema)]
pub struct LocationBody {
    pub code: String,
    pub name: String,
    /// Warehouse, Retail, Dropship or Virtual.
    #[serde(rename = "type")]
    pub location_type: String,
    pub address: Option<AddressBody>,
    /// ISO 3166-1 alpha-2 from the reference data.
    pub country: String,
    /// ≥ 0; absent means unlimited.
    pub capacity: Option<i64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LocationListQuery {
    pub page: Option<i64>,
    pub page_size: Option<i64>,
    /// Warehouse, Retail, Dropship or Virtual.
    #[serde(rename = "type")]
    pub location_type: Option<String>,
    pub country: Option<String>,
    pub is_active: Option<bool>,
    /// Case-insensitive substring of code or name.
    pub search: Option<String>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateInventoryBody {
    pub product_id: Uuid,
    pub location_id: Uuid,
    /// Initial stock, recorded as a Receipt.
    pub quantity_on_hand: Option<i64>,
    pub reorder_point: Option<i64>,
    pub min_stock: Option<i64>,
    pub max_stock: Option<i64>,
}

/// `PUT /inventory/:id`: only the thresholds (each replaced; absent clears it).
#[derive(Debug, Deserialize, ToSchema)]
pub struct ThresholdsBody {
    pub reorder_point: Option<i64>,
    pub min_stock: Option<i64>,
    pub max_stock: Option<i64>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct InventoryListQuery {
    pub page: Option<i64>,
    pub page_size: Option<i64>,
    pub product_id: Option<String>,
    pub location_id: Option<String>,
    /// Only records whose available stock is at or below the reorder point.
    pub low_stock: Option<bool>,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ReceiveBody {
    pub quantity: i64,
    /// Cents per unit, in `currency`; without it, in the product's currency, else `REPORTING_CURRENCY`.
    pub unit_cost: Option<i64>,
    pub currency: Option<String>,
    /// order, purchase_order, transfer or manual (default manual).
    pub reference_type: Option<String>,
    pub reference_id: Option<Uuid>,
    pub reason: Option<String>,
}

/// `/reserve`, `/release`, `/commit`.
#[derive(Debug, Deserialize, ToSchema)]
pub struct OrderQuantityBody {
    pub quantity: i64,
    /// A reference; it need not name an order of this service.
    pub order_id: Uuid,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AdjustBody {
    /// ≠ 0; negative lowers on hand (never below reserved).
    pub quantity_delta: i64,
    pub reason: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct TransferBody {
    pub to_location_id: Uuid,
    pub quantity: i64,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct DamageBody {
    pub quantity: i64,
    pub reason: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct ReturnBody {
    pub quantity: i64,
    pub order_id: Option<Uuid>,
    pub reason: Option<String>,
}

/// `POST /stock-movements`: performs the operation of `type` with that operation's fields.
#[derive(Debug, Deserialize, ToSchema)]
pub struct MovementBody {
    pub inventory_id: Uuid,
    /// Receipt, Adjustment, Damage or Return.
    #[serde(rename = "type")]
    pub movement_type: String,
    /// Receipt, Damage, Return (for Adjustment, `quantity_delta`).
    pub quantity: Option<i64>,
    /// Adjustment.
    pub quantity_delta: Option<i64>,
    pub reason: Option<String>,
    /// Receipt: cents per unit, in `currency` (default: the product's, else `REPORTING_CURRENCY`).
    pub unit_cost: Option<i64>,
    pub currency: Option<String>,
    pub reference_type: Option<String>,
    pub reference_id: Option<Uuid>,
    /// Return.
    pub order_id: Option<Uuid>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct MovementListQuery {
    pub page: Option<i64>,
    pub page_size: Option<i64>,
    #[serde(rename = "type")]
    pub movement_type: Option<String>,
    pub inventory_id: Option<String>,
    pub product_id: Option<String>,
    pub location_id: Option<String>,
    pub reference_id: Option<String>,
    /// `YYYY-MM-DD`, inclusive.
    pub date_from: Option<String>,
    /// `YYYY-MM-DD`, inclusive.
    pub date_to: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RecentQuery {
    /// 1..=100, default 50.
    pub limit: Option<i64>,
}
