//! Warehouse management: the 51 endpoints under `/warehouse` (docs/orders-and-warehouse.md) — products (16),
//! inventory (14), stock movements (7) and locations (14).
//!
//! Quantity changes follow the warehouse domain's compare-and-set contract: load the record, run
//! the operation, apply it `WHERE` the quantities are still those it was computed from; when another
//! request won the race, reload and decide again.

pub mod inventory;
pub mod inventory_ops;
pub mod location_queries;
pub mod locations;
pub mod movements;
pub mod product_queries;
pub mod products;
pub mod requests;
pub mod responses;

use shared_kernel::StorageError;

use actix_web::web;
use warehouse_domain::{RepoError, WarehouseError};

use crate::http::ApiError;

/// Fixed segments before `{id}` in each group, so they are never read as ids.
pub fn configure(cfg: &mut web::ServiceConfig) {
    products::configure(cfg);
    inventory::configure(cfg);
    movements::configure(cfg);
    locations::configure(cfg);
}

/// A domain refusal, with `details` naming its field.
pub(crate) fn warehouse_error(error: &WarehouseError) -> ApiError {
    ApiError::from_domain_field(error, error.field())
}

/// A storage failure; `entity` names what was missing in a 404.
pub(crate) fn repo_error(entity: &str, error: RepoError) -> ApiError {
    match error {
        RepoError::Storage(StorageError::NotFound) => ApiError::not_found(format!("{entity} not found")),
        other => other.into(),
    }
}
