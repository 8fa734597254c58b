//! The warehouse's use cases, one file per area, each a service holding its ports (`Arc<dyn …>`)
//! and a [`Clock`]; callable without HTTP or a database (the in-memory adapters of
//! `crate::memory`, feature `memory`, serve every port).
//!
//! | area | service | use cases |
//! |---|---|---|
//! | [`products`] | [`ProductService`] | create, update, delete, discontinue, activate (and read one) |
//! | [`locations`] | [`LocationService`] | create, update, delete, activate, deactivate (and read one) |
//! | [`inventory`] | [`InventoryService`] | create a record (with its initial stock), set thresholds, delete |
//! | [`stock_operations`] | [`StockOperations`] | receive, reserve, release, commit, adjust, damage, return, transfer |
//! | [`order_stock`] | [`OrderStock`] | what an order event means for stock: reserve on `order.confirmed`, release on `order.cancelled`, commit on `order.fulfilled` |
//! | [`suppliers`] | [`SupplierService`] | create, update, delete (refused with open purchase orders), read one |
//! | [`purchasing`] | [`PurchasingService`] | create a purchase order, add/change/remove a line, submit, receive, cancel, close (and read one) |
//! | [`reorder`] | [`PurchasingService`] | reorder suggestions, draft purchase orders from them (one per supplier) |
//! | [`transfers`] | [`TransferService`] | create, ship (all or nothing), receive, cancel (and read one) |
//!
//! A new area is one new file here with its service, plus its port in [`crate::repository`] (or
//! beside its aggregates, as [`crate::purchasing::repository`] and [`crate::transfers::repository`]).
//!
//! Every use case fails with [`RepoError`]: a business refusal is `Refused(WarehouseError)`, a
//! storage failure `Storage(StorageError)`. The absence of what the use case works on is
//! `Refused(WarehouseError::NotFound { entity })` (`NOT_FOUND`, "product not found"). A write that
//! lost a compare-and-set race is decided again on a fresh read
//! ([`shared_kernel::application::until_settled`]).
//!
//! [`Clock`]: shared_kernel::application::Clock

pub mod inventory;
pub mod locations;
pub mod order_stock;
pub mod products;
pub mod purchasing;
pub mod reorder;
pub mod stock_operations;
pub mod suppliers;
pub mod transfers;

use shared_kernel::application::Attempt;
use shared_kernel::{CurrencyCode, StorageError};

use crate::error::WarehouseError;
use crate::location::CountryCode;
use crate::repository::{Countries, Currencies, RepoError};

pub use inventory::InventoryService;
pub use locations::{LocationRequest, LocationService};
pub use order_stock::{OrderStock, OrderStockOutcome};
pub use products::ProductService;
pub use purchasing::{PurchaseLineRequest, PurchaseOrderRequest, PurchasingService};
pub use reorder::DraftedPurchases;
pub use stock_operations::{MovementRequest, ReceiptRequest, StockOperations, Stocked};
pub use suppliers::SupplierService;
pub use transfers::TransferService;

/// A port's `NotFound` as the use case's own refusal, naming what is missing (`entity`).
pub(crate) fn missing(entity: &'static str) -> impl Fn(RepoError) -> RepoError {
    move |error| match error {
        RepoError::Storage(StorageError::NotFound) => RepoError::Refused(WarehouseError::NotFound { entity }),
        other => other,
    }
}

/// A conditional save's result as an attempt: `Stale` is decided again; any other failure is the
/// answer, with a missing record named `entity`.
pub(crate) fn saved<T>(result: Result<(), RepoError>, value: T, entity: &'static str) -> Result<Attempt<T>, RepoError> {
    answered(result.map(|()| value), entity)
}

/// [`saved`] for a save that answers what it wrote.
pub(crate) fn answered<T>(result: Result<T, RepoError>, entity: &'static str) -> Result<Attempt<T>, RepoError> {
    match result {
        Ok(value) => Ok(Attempt::Done(value)),
        Err(RepoError::Storage(StorageError::Stale)) => Ok(Attempt::Stale),
        Err(other) => Err(missing(entity)(other)),
    }
}

/// A domain refusal as a use case's error.
pub(crate) fn refused(error: WarehouseError) -> RepoError {
    RepoError::Refused(error)
}

/// A currency that is not an active one of the reference data: `VALIDATION_ERROR` on `currency`.
pub fn inactive_currency() -> WarehouseError {
    WarehouseError::Validation { field: "currency", message: "must be an active ISO 4217 currency code" }
}

/// `code` when the reference data lists it as active; [`inactive_currency`] otherwise.
pub(crate) async fn active_currency(
    currencies: &dyn Currencies,
    code: CurrencyCode,
) -> Result<CurrencyCode, RepoError> {
    match currencies.is_active(code).await? {
        true => Ok(code),
        false => Err(refused(inactive_currency())),
    }
}

/// `text` as a currency code the reference data lists as active; [`inactive_currency`] otherwise.
pub(crate) async fn active_currency_text(currencies: &dyn Currencies, text: &str) -> Result<CurrencyCode, RepoError> {
    let code = CurrencyCode::parse(text).map_err(|_| refused(inactive_currency()))?;
    active_currency(currencies, code).await
}

/// `code` when the reference data lists it; `VALIDATION_ERROR` on `field` ("is not a known
/// country") otherwise.
pub(crate) async fn known_country(
    countries: &dyn Countries,
    field: &'static str,
    code: CountryCode,
) -> Result<CountryCode, RepoError> {
    match countries.exists(code).await? {
        true => Ok(code),
        false => Err(refused(WarehouseError::Validation { field, message: "is not a known country" })),
    }
}
