//! Adding, re-quantifying and removing order lines (pending orders only; `orders:update`).

use actix_web::{web, HttpResponse};
use order_domain::{NewLine, OrderError};
use shared_kernel::StorageError;
use uuid::Uuid;
use warehouse_domain::RepoError as WarehouseRepoError;

use super::requests::{AddLineBody, LineQuantityBody};
use super::responses::OrderView;
use super::{change_order, order_error};
use crate::app::AppState;
use crate::http::{created, ok, ApiError, Json};
use crate::routes::reference::active_currency;

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
    if body.quantity <= 0 {
        return Err(order_error(OrderError::InvalidQuantity));
    }
    if body.unit_price < 0 {
        return Err(order_error(OrderError::InvalidPrice));
    }
    let currency = active_currency(&state, "currency", &body.currency).await?;
    let product = state.commerce.products.get(body.product_id).await.map_err(|e| match e {
        WarehouseRepoError::Storage(StorageError::NotFound) => ApiError::not_found("no such product"),
        other => ApiError::from_domain(&other),
    })?;
    if !product.is_orderable() {
        return Err(ApiError::field("product_id", "the product is discontinued"));
    }
    let line = NewLine {
        product_id: product.id,
        quantity: body.quantity,
        unit_price: body.unit_price,
        currency,
        description: Some(product.name.clone()),
        sku: Some(product.sku.clone()),
    };
    let order = change_order(&state, id.into_inner(), |order, now| order.add_line(line.clone(), now)).await?;
    Ok(created(OrderView::from(order)))
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
    Ok(ok(OrderView::from(order)))
}

#[utoipa::path(delete, path = "/api/v1/order-mgmt/orders/{id}/lines/{line_id}", tag = "orders",
    params(("id" = Uuid, Path), ("line_id" = Uuid, Path)),
    responses((status = 200, body = OrderView, description = "The order with recalculated totals"),
              (status = 404, description = "ORDER_NOT_FOUND, LINE_NOT_FOUND"), (status = 409, description = "ORDER_NOT_EDITABLE")),
    security(("bearer" = [])))]
pub async fn remove_line(state: web::Data<AppState>, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse, ApiError> {
    let (id, line_id) = path.into_inner();
    let order = change_order(&state, id, |order, now| order.remove_line(line_id, now)).await?;
    Ok(ok(OrderView::from(order)))
}
