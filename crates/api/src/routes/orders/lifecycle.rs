//! An order's life: creation, the status moves (confirm, process, fulfil, cancel) and deletion.
//! Each handler parses, calls its use case on `OrderService` and maps the answer.

use actix_web::{web, HttpResponse};
use order_domain::application::{CreateOrder, OrderItem};
use uuid::Uuid;

use super::requests::{CancelBody, CreateOrderBody};
use super::responses::{OrderView, TransitionView};
use crate::app::AppState;
use crate::http::conditional::{created_tagged, Tagged};
use crate::http::{no_content, ok, ApiError, Json, OptionalJson};

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders", tag = "orders", request_body = CreateOrderBody,
    responses((status = 201, body = OrderView, description = "A pending order with its generated order_number (and its lines, with `items`)"),
              (status = 400, description = "VALIDATION_ERROR (currency, tax, discount, notes, items), INVALID_QUANTITY, INVALID_PRICE"),
              (status = 404, description = "CUSTOMER_NOT_FOUND; NOT_FOUND for company_id or an item's product_id")),
    security(("bearer" = [])))]
pub async fn create_order(
    state: web::Data<AppState>,
    Json(body): Json<CreateOrderBody>,
) -> Result<HttpResponse, ApiError> {
    let command = CreateOrder {
        customer_id: body.customer_id,
        company_id: body.company_id,
        currency: body.currency,
        tax: body.tax.unwrap_or(0),
        discount: body.discount.unwrap_or(0),
        notes: body.notes,
        items: body.items.map(|items| {
            items
                .iter()
                .map(|item| OrderItem {
                    product_id: item.product_id,
                    quantity: item.quantity,
                    unit_price: item.unit_price,
                })
                .collect()
        }),
    };
    let order = state.commerce.order_service.create(command).await?;
    Ok(created_tagged::<OrderView, _>(order))
}

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders/{id}/confirm", tag = "orders", params(("id" = Uuid, Path)),
    responses((status = 200, body = TransitionView, description = "id, status, confirmed_at; the warehouse is asked to reserve"),
              (status = 404, description = "ORDER_NOT_FOUND"),
              (status = 409, description = "ORDER_EMPTY, INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn confirm(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let order = state.commerce.order_service.confirm(id.into_inner()).await?;
    Ok(ok(TransitionView { confirmed_at: order.confirmed_at, ..TransitionView::of(&order) }).tagged(&order))
}

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders/{id}/process", tag = "orders", params(("id" = Uuid, Path)),
    responses((status = 200, body = TransitionView, description = "id, status"),
              (status = 404, description = "ORDER_NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn process(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let order = state.commerce.order_service.process(id.into_inner()).await?;
    Ok(ok(TransitionView::of(&order)).tagged(&order))
}

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders/{id}/fulfill", tag = "orders", params(("id" = Uuid, Path)),
    responses((status = 200, body = TransitionView, description = "id, status, fulfilled_at; the warehouse commits the stock"),
              (status = 404, description = "ORDER_NOT_FOUND"),
              (status = 409, description = "INVALID_STATUS_TRANSITION, STOCK_NOT_RESERVED")),
    security(("bearer" = [])))]
pub async fn fulfill(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let order = state.commerce.order_service.fulfill(id.into_inner()).await?;
    Ok(ok(TransitionView { fulfilled_at: order.fulfilled_at, ..TransitionView::of(&order) }).tagged(&order))
}

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders/{id}/cancel", tag = "orders", params(("id" = Uuid, Path)),
    request_body(content = Option<CancelBody>, description = "Optional reason"),
    responses((status = 200, body = TransitionView, description = "id, status, cancelled_at; the warehouse releases the stock"),
              (status = 404, description = "ORDER_NOT_FOUND"),
              (status = 409, description = "ORDER_ALREADY_CANCELLED, INVALID_STATUS_TRANSITION (fulfilled)")),
    security(("bearer" = [])))]
pub async fn cancel(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    body: OptionalJson<CancelBody>,
) -> Result<HttpResponse, ApiError> {
    let reason = body.0.and_then(|b| b.reason);
    let order = state.commerce.order_service.cancel(id.into_inner(), reason.as_deref()).await?;
    Ok(ok(TransitionView { cancelled_at: order.cancelled_at, ..TransitionView::of(&order) }).tagged(&order))
}

#[utoipa::path(delete, path = "/api/v1/order-mgmt/orders/{id}", tag = "orders", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted"), (status = 404, description = "ORDER_NOT_FOUND"),
              (status = 409, description = "INVALID_STATUS_TRANSITION: only pending and cancelled orders may be deleted")),
    security(("bearer" = [])))]
pub async fn delete_order(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.commerce.order_service.delete(id.into_inner()).await?;
    Ok(no_content())
}
