//! What clients send to the order endpoints: bodies and query parameters.

use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateOrderBody {
    pub customer_id: Uuid,
    /// An active ISO 4217 code.
    #[schema(example = "USD")]
    pub currency: String,
    pub company_id: Option<Uuid>,
    /// Cents, ≥ 0 (default 0).
    pub tax: Option<i64>,
    /// Cents, ≥ 0 (default 0).
    pub discount: Option<i64>,
    pub notes: Option<String>,
    /// Variant (decisions §12.2): the order's lines, created with it in one transaction; each takes
    /// the order's currency.
    #[serde(default)]
    pub items: Option<Vec<OrderItemBody>>,
}

/// One line of `items`: an existing, active product, a quantity and a price in the order's currency.
#[derive(Debug, Deserialize, ToSchema)]
pub struct OrderItemBody {
    pub product_id: Uuid,
    /// > 0.
    pub quantity: i64,
    /// Cents, ≥ 0.
    pub unit_price: i64,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AddLineBody {
    /// An existing, active product; its SKU and name are copied onto the line.
    pub product_id: Uuid,
    /// > 0.
    pub quantity: i64,
    /// Cents, ≥ 0.
    pub unit_price: i64,
    /// Must equal the order's currency.
    pub currency: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct LineQuantityBody {
    /// > 0.
    pub quantity: i64,
}

#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct CancelBody {
    /// Optional; kept in the log only.
    pub reason: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OrderListQuery {
    pub page: Option<i64>,
    pub page_size: Option<i64>,
    /// pending, confirmed, processing, fulfilled or cancelled.
    pub status: Option<String>,
    /// A customer id.
    pub customer_id: Option<String>,
    /// Creation date from (inclusive), `YYYY-MM-DD`.
    pub date_from: Option<String>,
    /// Creation date to (inclusive), `YYYY-MM-DD`.
    pub date_to: Option<String>,
}
