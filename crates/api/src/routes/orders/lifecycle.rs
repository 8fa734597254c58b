//! An order's life: creation, the status moves (confirm, process, fulfil, cancel) and deletion.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use infrastructure::orders::references::{company_exists, customer_exists};
use std::collections::HashMap;

use order_domain::{NewLine, NewOrder, Order, OrderDraft, RepoError};
use shared_kernel::CurrencyCode;
use uuid::Uuid;
use warehouse_domain::Product;

use super::lines::{check_line_input, line_for};
use super::requests::{CancelBody, CreateOrderBody, OrderItemBody};
use super::responses::{OrderView, TransitionView};
use super::{change_order, order_error, repo_error};
use crate::app::AppState;
use crate::commerce;
use crate::http::conditional::{created_tagged, Tagged};
use crate::http::retry::{until_settled, Attempt};
use crate::http::{no_content, ok, ApiError, Json, OptionalJson};
use crate::routes::reference::active_currency;

fn customer_not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "CUSTOMER_NOT_FOUND", "no such customer")
}

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders", tag = "orders", request_body = CreateOrderBody,
    responses((status = 201, body = OrderView, description = "A pending order with its generated order_number (and its lines, with `items`)"),
              (status = 400, description = "VALIDATION_ERROR (currency, tax, discount, notes, items), INVALID_QUANTITY, INVALID_PRICE"),
              (status = 404, description = "CUSTOMER_NOT_FOUND; NOT_FOUND for company_id or an item's product_id")),
    security(("bearer" = [])))]
pub async fn create_order(
    state: web::Data<AppState>,
    Json(body): Json<CreateOrderBody>,
) -> Result<HttpResponse, ApiError> {
    let currency = active_currency(&state, "currency", &body.currency).await?;
    let input = NewOrder {
        customer_id: body.customer_id,
        company_id: body.company_id,
        currency,
        tax: body.tax.unwrap_or(0),
        discount: body.discount.unwrap_or(0),
        notes: body.notes,
    };
    let mut draft = OrderDraft::new(input, commerce::now()).map_err(order_error)?;
    if let Some(items) = &body.items {
        draft = draft.with_lines(item_lines(&state, items, currency).await?).map_err(order_error)?;
    }
    if !customer_exists(&state.pool, body.customer_id).await? {
        return Err(customer_not_found());
    }
    if let Some(company_id) = body.company_id {
        if !company_exists(&state.pool, company_id).await? {
            return Err(ApiError::not_found("no such company"));
        }
    }
    let order = state.commerce.orders.create(draft).await.map_err(repo_error)?;
    state.outbox.notify();
    Ok(created_tagged::<OrderView, _>(order))
}

/// At most this many `items` in one creation.
pub const MAX_ORDER_ITEMS: usize = 100;

/// The lines of the `items` variant: every product looked up in one query.
async fn item_lines(
    state: &AppState,
    items: &[OrderItemBody],
    currency: CurrencyCode,
) -> Result<Vec<NewLine>, ApiError> {
    if items.len() > MAX_ORDER_ITEMS {
        return Err(ApiError::field("items", format!("at most {MAX_ORDER_ITEMS} items are allowed")));
    }
    for item in items {
        check_line_input(item.quantity, item.unit_price)?;
    }
    let ids: Vec<Uuid> = items.iter().map(|item| item.product_id).collect();
    let products = state.commerce.products.get_many(&ids).await?;
    let by_id: HashMap<Uuid, &Product> = products.iter().map(|p| (p.id, p)).collect();
    items
        .iter()
        .enumerate()
        .map(|(n, item)| {
            let field = format!("items[{n}].product_id");
            let product =
                by_id.get(&item.product_id).ok_or_else(|| ApiError::not_found("no such product").on_field(&field))?;
            line_for(product, item.quantity, item.unit_price, currency, &field)
        })
        .collect()
}

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders/{id}/confirm", tag = "orders", params(("id" = Uuid, Path)),
    responses((status = 200, body = TransitionView, description = "id, status, confirmed_at; the warehouse is asked to reserve"),
              (status = 404, description = "ORDER_NOT_FOUND"),
              (status = 409, description = "ORDER_EMPTY, INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn confirm(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let order = change_order(&state, id.into_inner(), Order::confirm).await?;
    Ok(ok(TransitionView { confirmed_at: order.confirmed_at, ..TransitionView::of(&order) }).tagged(&order))
}

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders/{id}/process", tag = "orders", params(("id" = Uuid, Path)),
    responses((status = 200, body = TransitionView, description = "id, status"),
              (status = 404, description = "ORDER_NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn process(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let order = change_order(&state, id.into_inner(), Order::process).await?;
    Ok(ok(TransitionView::of(&order)).tagged(&order))
}

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders/{id}/fulfill", tag = "orders", params(("id" = Uuid, Path)),
    responses((status = 200, body = TransitionView, description = "id, status, fulfilled_at; the warehouse commits the stock"),
              (status = 404, description = "ORDER_NOT_FOUND"),
              (status = 409, description = "INVALID_STATUS_TRANSITION, STOCK_NOT_RESERVED")),
    security(("bearer" = [])))]
pub async fn fulfill(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let order = change_order(&state, id.into_inner(), Order::fulfill).await?;
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
    let id = id.into_inner();
    let order = change_order(&state, id, Order::cancel).await?;
    if let Some(reason) = body.0.and_then(|b| b.reason) {
        tracing::info!(order_id = %id, reason = %reason.trim(), "order cancelled");
    }
    Ok(ok(TransitionView { cancelled_at: order.cancelled_at, ..TransitionView::of(&order) }).tagged(&order))
}

#[utoipa::path(delete, path = "/api/v1/order-mgmt/orders/{id}", tag = "orders", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted"), (status = 404, description = "ORDER_NOT_FOUND"),
              (status = 409, description = "INVALID_STATUS_TRANSITION: only pending and cancelled orders may be deleted")),
    security(("bearer" = [])))]
pub async fn delete_order(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let state = &state;
    until_settled(|| async move {
        let order = state.commerce.orders.get(id).await.map_err(repo_error)?;
        let deletion = order.delete().map_err(order_error)?;
        match state.commerce.orders.delete(&deletion, commerce::now()).await {
            Ok(()) => Ok(Attempt::Done(no_content())),
            Err(RepoError::Stale) => Ok(Attempt::Stale),
            Err(other) => Err(repo_error(other)),
        }
    })
    .await
}
