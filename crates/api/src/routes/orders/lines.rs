//! Adding, re-quantifying and removing order lines (pending orders only; `orders:update`).
//! Each handler parses, calls its use case on `OrderService` and maps the answer.

use actix_web::{web, HttpResponse};
use order_domain::application::AddLine;
use uuid::Uuid;

use super::requests::{AddLineBody, LineQuantityBody};
use super::responses::OrderView;
use crate::app::AppState;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{ApiError, Json};

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
    let line = AddLine {
        product_id: body.product_id,
        quantity: body.quantity,
        unit_price: body.unit_price,
        currency: body.currency,
    };
    let order = state.commerce.order_service.add_line(id.into_inner(), line).await?;
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
    let order = state.commerce.order_service.change_line_quantity(id, line_id, body.quantity).await?;
    Ok(ok_tagged::<OrderView, _>(order))
}

#[utoipa::path(delete, path = "/api/v1/order-mgmt/orders/{id}/lines/{line_id}", tag = "orders",
    params(("id" = Uuid, Path), ("line_id" = Uuid, Path)),
    responses((status = 200, body = OrderView, description = "The order with recalculated totals"),
              (status = 404, description = "ORDER_NOT_FOUND, LINE_NOT_FOUND"), (status = 409, description = "ORDER_NOT_EDITABLE")),
    security(("bearer" = [])))]
pub async fn remove_line(state: web::Data<AppState>, path: web::Path<(Uuid, Uuid)>) -> Result<HttpResponse, ApiError> {
    let (id, line_id) = path.into_inner();
    let order = state.commerce.order_service.remove_line(id, line_id).await?;
    Ok(ok_tagged::<OrderView, _>(order))
}
