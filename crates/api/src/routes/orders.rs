//! Order management: the 14 endpoints under `/order-mgmt/orders` (docs/orders-and-warehouse.md).
//!
//! Writes follow the order domain's compare-and-set contract: load, run the domain operation,
//! save `WHERE version = expected`; when another request won the race, reload and decide again, so
//! the loser gets the precise domain error (e.g. `ORDER_ALREADY_CANCELLED`).

pub mod lifecycle;
pub mod lines;
pub mod queries;
pub mod requests;
pub mod responses;

use std::collections::BTreeMap;

use actix_web::web;
use order_domain::{Order, OrderChange, OrderError, RepoError};
use shared_kernel::error::Classified;
use time::OffsetDateTime;
use uuid::Uuid;

use crate::app::AppState;
use crate::commerce;
use crate::http::retry::{until_settled, Attempt};
use crate::http::ApiError;

/// Fixed segments (`number`, `customer`, `status`) before `{id}`, so they are never read as ids.
pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/orders")
            .route(web::get().to(queries::list_orders))
            .route(web::post().to(lifecycle::create_order)),
    )
    .service(web::resource("/orders/number/{order_number}").route(web::get().to(queries::order_by_number)))
    .service(web::resource("/orders/customer/{customer_id}").route(web::get().to(queries::orders_by_customer)))
    .service(web::resource("/orders/status/{status}").route(web::get().to(queries::orders_by_status)))
    .service(
        web::resource("/orders/{id}")
            .route(web::get().to(queries::get_order))
            .route(web::delete().to(lifecycle::delete_order)),
    )
    .service(web::resource("/orders/{id}/confirm").route(web::post().to(lifecycle::confirm)))
    .service(web::resource("/orders/{id}/process").route(web::post().to(lifecycle::process)))
    .service(web::resource("/orders/{id}/fulfill").route(web::post().to(lifecycle::fulfill)))
    .service(web::resource("/orders/{id}/cancel").route(web::post().to(lifecycle::cancel)))
    .service(web::resource("/orders/{id}/lines").route(web::post().to(lines::add_line)))
    .service(
        web::resource("/orders/{id}/lines/{line_id}")
            .route(web::put().to(lines::change_line))
            .route(web::delete().to(lines::remove_line)),
    );
}

/// A domain refusal, with `details` naming the field of a 400.
pub(crate) fn order_error(error: OrderError) -> ApiError {
    let api = ApiError::from_domain(&error);
    match error.field() {
        Some(field) if error.kind() == shared_kernel::ErrorKind::Validation => {
            api.with_details(BTreeMap::from([(field.to_owned(), error.to_string())]))
        }
        _ => api,
    }
}

/// A storage failure (`ORDER_NOT_FOUND`, `CONFLICT`, 503, 500).
pub(crate) fn repo_error(error: RepoError) -> ApiError {
    ApiError::storage_or(error, queries::order_not_found)
}

/// Loads the order, runs `operation` on it and saves the change; on a lost race, again. The save
/// hands the change's events to the bus itself (a shared commit), and wakes the outbox relay only
/// for events it leaves it.
pub(crate) async fn change_order<F>(state: &AppState, id: Uuid, operation: F) -> Result<Order, ApiError>
where
    F: Fn(&Order, OffsetDateTime) -> Result<OrderChange, OrderError>,
{
    let operation = &operation;
    until_settled(|| async move {
        let order = state.commerce.orders.get(id).await.map_err(repo_error)?;
        let change = operation(&order, commerce::now()).map_err(order_error)?;
        match state.commerce.orders.save(&change).await {
            Ok(()) => Ok(Attempt::Done(change.order)),
            Err(RepoError::Stale) => Ok(Attempt::Stale),
            Err(other) => Err(repo_error(other)),
        }
    })
    .await
}
