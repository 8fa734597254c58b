//! Reading orders: one, a page, and the lookups by number, customer and status.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use order_domain::{OrderFilter, OrderNumber, OrderStatus};
use uuid::Uuid;

use super::requests::{OrderListQuery, OrderStatusName};
use super::responses::OrderView;
use super::{order_error, repo_error};
use crate::app::AppState;
use crate::http::conditional::ok_tagged;
use crate::http::{list, ApiError, PageQuery};
use crate::routes::query_params;

pub(crate) fn order_not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "ORDER_NOT_FOUND", "order not found")
}

/// `GET /orders`' filters as the list and its export read them (blank is absent).
pub(crate) fn order_filter(query: &OrderListQuery) -> Result<OrderFilter, ApiError> {
    let status = query_params::present(&query.status).map(OrderStatus::parse).transpose().map_err(order_error)?;
    let filter = OrderFilter {
        status,
        customer_id: query_params::uuid("customer_id", &query.customer_id)?,
        date_from: query_params::date("date_from", &query.date_from)?,
        date_to: query_params::date("date_to", &query.date_to)?,
    };
    filter.validate().map_err(order_error)?;
    Ok(filter)
}

#[utoipa::path(get, path = "/api/v1/order-mgmt/orders", tag = "orders", params(PageQuery, OrderListQuery),
    responses((status = 200, body = [OrderView], description = "Newest first, paginated"),
              (status = 400, description = "VALIDATION_ERROR; INVALID_UUID for customer_id")),
    security(("bearer" = [])))]
pub async fn list_orders(
    state: web::Data<AppState>,
    page: web::Query<PageQuery>,
    query: web::Query<OrderListQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = page.request()?;
    let filter = order_filter(&query)?;
    let orders = state.commerce.orders.list(&filter, page).await.map_err(repo_error)?;
    Ok(list(orders.map(OrderView::from)))
}

#[utoipa::path(get, path = "/api/v1/order-mgmt/orders/{id}", tag = "orders", params(("id" = Uuid, Path)),
    responses((status = 200, body = OrderView), (status = 404, description = "ORDER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_order(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let order = state.commerce.orders.get(id.into_inner()).await.map_err(repo_error)?;
    Ok(ok_tagged::<OrderView, _>(order))
}

#[utoipa::path(get, path = "/api/v1/order-mgmt/orders/number/{order_number}", tag = "orders",
    params(("order_number" = String, Path, pattern = "^ORD-[0-9]{4}-[0-9]{6}$", example = "ORD-2026-000001")),
    responses((status = 200, body = OrderView), (status = 404, description = "ORDER_NOT_FOUND (also for a malformed number)")),
    security(("bearer" = [])))]
pub async fn order_by_number(state: web::Data<AppState>, number: web::Path<String>) -> Result<HttpResponse, ApiError> {
    // A malformed number names no order.
    let number = OrderNumber::parse(&number).map_err(|_| order_not_found())?;
    let order = state.commerce.orders.get_by_number(&number).await.map_err(repo_error)?;
    Ok(ok_tagged::<OrderView, _>(order))
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
    params(("status" = inline(OrderStatusName), Path, example = "pending"), PageQuery),
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
