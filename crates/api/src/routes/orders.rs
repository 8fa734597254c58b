//! Order management: the 14 endpoints under `/order-mgmt/orders` (docs/orders-and-warehouse.md).
//!
//! Writes are the order context's use cases (`order_domain::application::OrderService`, built in
//! `references.rs` over the other contexts' ports); the handlers parse, call and map. Reads without
//! a rule call the repository directly.

pub mod lifecycle;
pub mod lines;
pub mod queries;
pub mod references;
pub mod requests;
pub mod responses;

use std::collections::BTreeMap;

use actix_web::web;
use order_domain::{OrderError, RepoError};
use shared_kernel::error::Classified;

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
