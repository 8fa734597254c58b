//! Adding, re-quantifying and removing order lines (pending orders only; `orders:update`).

use actix_web::{web, HttpResponse};
use order_domain::{NewLine, OrderError};
use shared_kernel::{CurrencyCode, StorageError};
use uuid::Uuid;
use warehouse_domain::{Product, RepoError as WarehouseRepoError};

use super::requests::{AddLineBody, LineQuantityBody};
use super::responses::OrderView;
use super::{change_order, order_error};
use crate::app::AppState;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{ApiError, Json};
use crate::routes::reference::active_currency;

/// Quantity and price, checked before any reference is looked up (the domain's order of checks).
pub(crate) fn check_line_input(quantity: i64, unit_price: i64) -> Result<(), ApiError> {
    if quantity <= 0 {
        return Err(order_error(OrderError::InvalidQuantity));
    }
    if unit_price < 0 {
        return Err(order_error(OrderError::InvalidPrice));
    }
    Ok(())
}

/// A line for `product`, which must still be orderable; its SKU and name are copied onto the line.
pub(crate) fn line_for(
    product: &Product,
    quantity: i64,
    unit_price: i64,
    currency: CurrencyCode,
    field: &str,
) -> Result<NewLine, ApiError> {
    if !product.is_orderable() {
        return Err(ApiError::field(field, "the product is discontinued"));
    }
    Ok(NewLine {
        product_id: product.id,
        quantity,
        unit_price,
        currency,
        description: Some(product.name.clone()),
        sku: Some(product.sku.clone()),
    })
}

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders/{id}/lines", tag = "orders", params(("id" = Uuid, Path)),
    request_body = AddLineBody,
    responses((status = 201, body = OrderView, description = "The order with the new line and recalculated totals"),
              (status = 400, description = "INVALID_QUANTITY, INVALID_PRICE, CURRENCY_MISMATCH, VALIDATION_ERROR (discontinued product, overflow)"),
              (status = 404, description = "ORDER_NOT_FOUND; NOT_FOUND for the product"),
              (status = 409, description = "ORDER_NOT_EDITABLE")),
    security(("bearer" = [])))]
pub async fn add_line(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<AddLineBody>,
) -> Result<HttpResponse, ApiError> {
    // Input first, as the domain orders its checks: quantity, price, then references.
    check_line_input(body.quantity, body.unit_price)?;
    let currency = active_currency(&state, "currency", &body.currency).await?;
    let product = state.commerce.products.get(body.product_id).await.map_err(|e| match e {
        WarehouseRepoError::Storage(StorageError::NotFound) => ApiError::not_found("no such product"),
        other => other.into(),
    })?;
    let line = line_for(&product, body.quantity, body.unit_price, currency, "product_id")?;
    let order = change_order(&state, id.into_inner(), |order, now| order.add_line(line.clone(), now)).await?;
    Ok(created_tagged::<OrderView, _>(order))
}

#[utoipa::path(put, path = "/api/v1/order-mgmt/orders/{id}/lines/{line_id}", tag = "orders",
    params(("id" = Uuid, Path), ("line_id" = Uuid, Path)), request_body = LineQuantityBody,
    responses((status = 200, body = OrderView, description = "The order with recalculated totals"),
              (status = 400, description = "INVALID_QUANTITY, VALIDATION_ERROR (overflow)"),
              (status = 404, description = "ORDER_NOT_FOUND, LINE_NOT_FOUND"), (status = 409, description = "ORDER_NOT_EDITABLE")),
    security(("bearer" = [])))]
pub async fn change_line(
    state: web::Data<AppState>,
    path: web::Path<(Uuid, Uuid)>,
    Json(body): Json<LineQuantityBody>,
) -> Result<HttpResponse, ApiError> {
    let (id, line_id) = path.into_inner();
    let order = change_order(&state, id, |order, now| order.change_line_quantity(line_id, body.quantity, now)).await?;
    Ok(ok_tagged::<OrderView, _>(order))
}

#[utoipa::path(delete, path = "/api/v1/order-mgmt/orders/{id}/lines/{line_id}", tag = "orders",
    params(("id" = Uuid, Path), ("line_id" = Uuid, Path)),
    responses((status = 200, body = OrderView, description = "The order with recalculated totals"),
              (status = 404, description = "ORDER_NOT_FOUND, LINE_NOT_FOUND"), (status = 409, description = "ORDER_NOT_EDITABLE")),
    security(("bearer" = [])))]
pub async fn remove_line(state: web::Data<AppState>, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse, ApiError> {
    let (id, line_id) = path.into_inner();
    let order = change_order(&state, id, |order, now| order.remove_line(line_id, now)).await?;
    Ok(ok_tagged::<OrderView, _>(order))
}
