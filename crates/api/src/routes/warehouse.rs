//! Warehouse management: the 51 endpoints under `/warehouse` (decisions §8) — products (16),
//! inventory (14), stock movements (7) and locations (14).
//!
//! Quantity changes follow the warehouse domain's compare-and-set contract: load the record, run
//! the operation, apply it `WHERE` the quantities are still those it was computed from; when another
//! request won the race, reload and decide again.

pub mod bodies;
pub mod inventory;
pub mod inventory_ops;
pub mod location_queries;
pub mod locations;
pub mod movements;
pub mod product_queries;
pub mod products;
pub mod views;

use std::collections::BTreeMap;

use actix_web::web;
use shared_kernel::error::Classified;
use shared_kernel::ErrorKind;
use warehouse_domain::{RepoError, WarehouseError};

use crate::http::ApiError;

/// Fixed segments before `{id}` in each group, so they are never read as ids.
pub fn configure(cfg: &mut web::ServiceConfig) {
    products::configure(cfg);
    inventory::configure(cfg);
    movements::configure(cfg);
    locations::configure(cfg);
}

/// A domain refusal, with `details` naming the field of a 400.
pub(crate) fn warehouse_error(error: &WarehouseError) -> ApiError {
    let api = ApiError::from_domain(error);
    match error.field() {
        Some(field) if error.kind() == ErrorKind::Validation => {
            api.with_details(BTreeMap::from([(field.to_owned(), error.to_string())]))
        }
        _ => api,
    }
}

/// A storage failure; `entity` names what was missing in a 404.
pub(crate) fn repo_error(entity: &str, error: RepoError) -> ApiError {
    match error {
        RepoError::NotFound => ApiError::not_found(format!("{entity} not found")),
        RepoError::Duplicate { field } => ApiError::conflict("ALREADY_EXISTS", format!("{field} already exists"))
            .with_details(BTreeMap::from([(field.to_owned(), "already exists".to_owned())])),
        RepoError::Domain(e) => warehouse_error(&e),
        other => ApiError::from_domain(&other),
    }
}

/// How often a quantity change is re-decided after losing a race. Each lost race means another
/// writer succeeded, so this bounds the writers a request can wait behind, not the time.
pub(crate) const MAX_ATTEMPTS: usize = 200;

pub(crate) fn too_much_contention() -> ApiError {
    ApiError::conflict("CONFLICT", "the record kept changing concurrently; try again")
}
