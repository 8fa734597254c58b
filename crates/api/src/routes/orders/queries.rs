//! Creating and reading orders.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use infrastructure::orders::references::{company_exists, customer_exists};
use infrastructure::reference::queries::find_currency;
use order_domain::{NewOrder, OrderDraft, OrderFilter, OrderNumber, OrderStatus};
use shared_kernel::CurrencyCode;
use uuid::Uuid;

use super::views::{CreateOrderBody, OrderListQuery, OrderView};
use super::{order_error, repo_error};
use crate::app::AppState;
use crate::commerce;
use crate::http::{created, list, ok, ApiError, Json, PageQuery};
use crate::routes::query_params;

/// An active ISO 4217 code from the reference data; anything else is 400 on `field`.
pub(crate) async fn active_currency(state: &AppState, field: &str, code: &str) -> Result<CurrencyCode, ApiError> {
    let invalid = || ApiError::field(field, "must be an active ISO 4217 currency code");
    let currency = CurrencyCode::parse(code).map_err(|_| invalid())?;
    match find_currency(&state.pool, currency.as_str()).await? {
        Some(row) if row.is_active => Ok(currency),
        _ => Err(invalid()),
    }
}

fn customer_not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "CUSTOMER_NOT_FOUND", "no such customer")
}

pub(crate) fn order_not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "ORDER_NOT_FOUND", "order not found")
}

#[utoipa::path(post, path = "/api/v1/order-mgmt/orders", tag = "orders", request_body = CreateOrderBody,
    responses((status = 201, body = OrderView, description = "A pending order with its generated order_number"),
              (status = 400, description = "VALIDATION_ERROR (currency, tax, discount, notes)"),
              (status = 404, description = "CUSTOMER_NOT_FOUND; NOT_FOUND for company_id")),
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
    let draft = OrderDraft::new(input, commerce::now()).map_err(order_error)?;
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
    Ok(created(OrderView::from(order)))
}

#[utoipa::path(get, path = "/api/v1/order-mgmt/orders", tag = "orders", params(OrderListQuery),
    responses((status = 200, body = [OrderView], description = "Newest first, paginated"),
              (status = 400, description = "VALIDATION_ERROR; INVALID_UUID for customer_id")),
    security(("bearer" = [])))]
pub async fn list_orders(
    state: web::Data<AppState>,
    query: web::Query<OrderListQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = PageQuery { page: query.page, page_size: query.page_size }.request()?;
    let status = query_params::present(&query.status).map(OrderStatus::parse).transpose().map_err(order_error)?;
    let filter = OrderFilter {
        status,
        customer_id: query_params::uuid("customer_id", &query.customer_id)?,
        date_from: query_params::date("date_from", &query.date_from)?,
        date_to: query_params::date("date_to", &query.date_to)?,
    };
    filter.validate().map_err(order_error)?;
    let orders = state.commerce.orders.list(&filter, page).await.map_err(repo_error)?;
    Ok(list(orders.map(OrderView::from)))
}

#[utoipa::path(get, path = "/api/v1/order-mgmt/orders/{id}", tag = "orders", params(("id" = Uuid, Path)),
    responses((status = 200, body = OrderView), (status = 404, description = "ORDER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_order(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let order = state.commerce.orders.get(id.into_inner()).await.map_err(repo_error)?;
    Ok(ok(OrderView::from(order)))
}

#[utoipa::path(get, path = "/api/v1/order-mgmt/orders/number/{order_number}", tag = "orders",
    params(("order_number" = String, Path, example = "ORD-2026-000001")),
    responses((status = 200, body = OrderView), (status = 404, description = "ORDER_NOT_FOUND (also for a malformed number)")),
    security(("bearer" = [])))]
pub async fn order_by_number(state: web::Data<AppState>, number: web::Path<String>) -> Result<HttpResponse, ApiError> {
    // A malformed number names no order.
    let number = OrderNumber::parse(&number).map_err(|_| order_not_found())?;
    let order = state.commerce.orders.get_by_number(&number).await.map_err(repo_error)?;
    Ok(ok(OrderView::from(order)))
}

#[utoipa::path(get, path = "/api/v1/order-mgmt/orders/customer/{customer_id}", tag = "orders",
    params(("customer_id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [OrderView], description = "The customer's orders, newest first")),
    security(("bearer" = [])))]
pub async fn orders_by_customer(
    state: web::Data<AppState>,
    customer_id: web::Path<Uuid>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = OrderFilter { customer_id: Some(customer_id.into_inner()), ..OrderFilter::default() };
    let orders = state.commerce.orders.list(&filter, query.request()?).await.map_err(repo_error)?;
    Ok(list(orders.map(OrderView::from)))
}

#[utoipa::path(get, path = "/api/v1/order-mgmt/orders/status/{status}", tag = "orders",
    params(("status" = String, Path, example = "pending"), PageQuery),
    responses((status = 200, body = [OrderView], description = "Orders in the status, newest first"),
              (status = 400, description = "VALIDATION_ERROR for an unknown status")),
    security(("bearer" = [])))]
pub async fn orders_by_status(
    state: web::Data<AppState>,
    status: web::Path<String>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let status = OrderStatus::parse(&status).map_err(order_error)?;
    let filter = OrderFilter { status: Some(status), ..OrderFilter::default() };
    let orders = state.commerce.orders.list(&filter, query.request()?).await.map_err(repo_error)?;
    Ok(list(orders.map(OrderView::from)))
}
