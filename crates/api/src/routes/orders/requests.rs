//! What clients send to the order endpoints: bodies and query parameters.
//!
//! The `#[schema]`/`#[param]` bounds state the rules the handlers and `order_domain` check, so that
//! a request valid against the document passes validation. [`OrderStatusName`] exists only for the
//! document; the handlers still read a `String`.

use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use uuid::Uuid;

/// Document-only: `OrderStatus` as the document lists it; `OrderStatus::parse` also takes any case.
#[derive(ToSchema)]
#[schema(description = "An order status (matched case-insensitively).", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum OrderStatusName {
    Pending,
    Confirmed,
    Processing,
    Fulfilled,
    Cancelled,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateOrderBody {
    pub customer_id: Uuid,
    /// An active ISO 4217 code.
    #[schema(format = "currency-code", example = "USD")]
    pub currency: String,
    pub company_id: Option<Uuid>,
    /// Cents, ≥ 0 (default 0).
    #[schema(minimum = 0)]
    pub tax: Option<i64>,
    /// Cents, ≥ 0 (default 0).
    #[schema(minimum = 0)]
    pub discount: Option<i64>,
    /// Trimmed; blank is absent.
    #[schema(max_length = 5000)]
    pub notes: Option<String>,
    /// Variant (docs/conventions.md): the order's lines, created with it in one transaction; each takes
    /// the order's currency.
    #[serde(default)]
    #[schema(max_items = 100)]
    pub items: Option<Vec<OrderItemBody>>,
}

/// One line of `items`: an existing, active product, a quantity and a price in the order's currency.
#[derive(Debug, Deserialize, ToSchema)]
pub struct OrderItemBody {
    pub product_id: Uuid,
    /// > 0.
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: i64,
    /// Cents, ≥ 0.
    #[schema(minimum = 0, extensions(("x-error-code" = json!("INVALID_PRICE"))))]
    pub unit_price: i64,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct AddLineBody {
    /// An existing, active product; its SKU and name are copied onto the line.
    pub product_id: Uuid,
    /// > 0.
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
    pub quantity: i64,
    /// Cents, ≥ 0.
    #[schema(minimum = 0, extensions(("x-error-code" = json!("INVALID_PRICE"))))]
    pub unit_price: i64,
    /// An active ISO 4217 code equal to the order's currency.
    #[schema(format = "currency-code", example = "USD")]
    pub currency: String,
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct LineQuantityBody {
    /// > 0.
    #[schema(minimum = 1, extensions(("x-error-code" = json!("INVALID_QUANTITY"))))]
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
    #[param(inline, value_type = Option<OrderStatusName>)]
    pub status: Option<String>,
    /// A customer id.
    #[param(format = Uuid)]
    pub customer_id: Option<String>,
    /// Creation date from (inclusive); years 1900..=2200; not after `date_to`.
    #[param(format = Date, pattern = "^(19[0-9]{2}|2[01][0-9]{2}|2200)-[0-9]{2}-[0-9]{2}$")]
    pub date_from: Option<String>,
    /// Creation date to (inclusive); years 1900..=2200.
    #[param(format = Date, pattern = "^(19[0-9]{2}|2[01][0-9]{2}|2200)-[0-9]{2}-[0-9]{2}$")]
    pub date_to: Option<String>,
}
