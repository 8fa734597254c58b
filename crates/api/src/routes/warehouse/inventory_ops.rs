//! Quantity operations on one record (`inventory:update`): receive, reserve, release, commit,
//! adjust, damage, return — and transfer between two records. Each writes exactly one movement per
//! record it changes, in the transaction of the change.

use actix_web::{web, HttpResponse};
use shared_kernel::StorageError;
use shared_kernel::{CurrencyCode, Money};
use uuid::Uuid;
use warehouse_domain::{
    Inventory, InventoryChange, NewInventory, Receipt, ReferenceType, RepoError, Stamp, Thresholds, WarehouseError,
};

use super::inventory::load_inventory;
use super::requests::{AdjustBody, DamageBody, OrderQuantityBody, ReceiveBody, ReturnBody, TransferBody};
use super::responses::{InventoryView, MovementView, StockChangeView, TransferView};
use super::{repo_error, warehouse_error};
use crate::app::AppState;
use crate::auth::Caller;
use crate::commerce;
use crate::http::conditional::Tagged;
use crate::http::retry::{until_settled, Attempt};
use crate::http::{ok, ApiError, Json};
use crate::routes::reference::active_currency;

fn stamp(caller: &Caller) -> Stamp {
    Stamp { at: commerce::now(), by: Some(caller.user_id) }
}

/// Loads the record, runs `operation` and applies the change as a compare-and-set; on a lost race,
/// again with the fresh record.
pub(crate) async fn change_inventory<F>(state: &AppState, id: Uuid, operation: F) -> Result<InventoryChange, ApiError>
where
    F: Fn(&Inventory) -> Result<InventoryChange, WarehouseError>,
{
    let operation = &operation;
    until_settled(|| async move {
        let record = load_inventory(state, id).await?;
        let change = operation(&record).map_err(|e| warehouse_error(&e))?;
        match state.commerce.inventory.apply(&change).await {
            Ok(()) => Ok(Attempt::Done(change)),
            Err(RepoError::Storage(StorageError::Stale)) => Ok(Attempt::Stale),
            Err(other) => Err(repo_error("inventory record", other)),
        }
    })
    .await
}

/// Tagged as the inventory record it changed (the resource the route names).
fn answer(change: InventoryChange) -> HttpResponse {
    ok(StockChangeView {
        inventory: InventoryView::from(&change.inventory),
        movement: MovementView::from(change.movement),
    })
    .tagged(&change.inventory)
}

/// The receipt of `POST /receive` and of a Receipt posted to `/stock-movements`, for the record
/// `inventory_id`.
#[expect(clippy::too_many_arguments, reason = "the receipt's fields as the two endpoints send them")]
pub(crate) async fn receipt(
    state: &AppState,
    inventory_id: Uuid,
    quantity: i64,
    unit_cost: Option<i64>,
    currency: Option<&str>,
    reference_type: Option<&str>,
    reference_id: Option<Uuid>,
    reason: Option<String>,
) -> Result<Receipt, ApiError> {
    let unit_cost = match (unit_cost, currency.map(str::trim).filter(|c| !c.is_empty())) {
        (Some(cents), Some(code)) => Some(Money::new(cents, active_currency(state, "currency", code).await?)),
        (Some(cents), None) => Some(Money::new(cents, cost_currency(state, inventory_id).await?)),
        (None, _) => None,
    };
    let reference_type = reference_type
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(ReferenceType::parse)
        .transpose()
        .map_err(|e| warehouse_error(&e))?;
    Ok(Receipt { quantity, unit_cost, reference_type, reference_id, reason })
}

/// A unit cost sent without a currency is in the product's currency, else in `REPORTING_CURRENCY`
/// (docs/conventions.md).
async fn cost_currency(state: &AppState, inventory_id: Uuid) -> Result<CurrencyCode, ApiError> {
    let record = load_inventory(state, inventory_id).await?;
    let product =
        state.commerce.products.get(record.record().product_id).await.map_err(|e| repo_error("product", e))?;
    Ok(product.record().currency.unwrap_or(state.settings.reporting_currency))
}

#[utoipa::path(post, path = "/api/v1/warehouse/inventory/{id}/receive", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = ReceiveBody,
    responses((status = 200, body = StockChangeView, description = "On hand raised; a Receipt movement"),
              (status = 400, description = "INVALID_QUANTITY, VALIDATION_ERROR"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn receive(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<ReceiveBody>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let receipt = receipt(
        &state,
        id,
        body.quantity,
        body.unit_cost,
        body.currency.as_deref(),
        body.reference_type.as_deref(),
        body.reference_id,
        body.reason,
    )
    .await?;
    let at = stamp(&caller);
    Ok(answer(change_inventory(&state, id, |r| r.receive(receipt.clone(), at)).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/inventory/{id}/reserve", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = OrderQuantityBody,
    responses((status = 200, body = StockChangeView, description = "Reserved raised; a Reservation movement"),
              (status = 400, description = "INVALID_QUANTITY"), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "INSUFFICIENT_STOCK: available is short")),
    security(("bearer" = [])))]
pub async fn reserve(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<OrderQuantityBody>,
) -> Result<HttpResponse, ApiError> {
    let at = stamp(&caller);
    Ok(answer(change_inventory(&state, id.into_inner(), |r| r.reserve(body.quantity, body.order_id, at)).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/inventory/{id}/release", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = OrderQuantityBody,
    responses((status = 200, body = StockChangeView, description = "Reserved lowered; a ReservationRelease movement"),
              (status = 400, description = "INVALID_QUANTITY"), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "RESERVATION_EXCEEDED: more than is reserved")),
    security(("bearer" = [])))]
pub async fn release(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<OrderQuantityBody>,
) -> Result<HttpResponse, ApiError> {
    let at = stamp(&caller);
    Ok(answer(change_inventory(&state, id.into_inner(), |r| r.release(body.quantity, body.order_id, at)).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/inventory/{id}/commit", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = OrderQuantityBody,
    responses((status = 200, body = StockChangeView, description = "On hand and reserved lowered, committed raised; a Commit movement"),
              (status = 400, description = "INVALID_QUANTITY"), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "RESERVATION_EXCEEDED: more than is reserved")),
    security(("bearer" = [])))]
pub async fn commit(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<OrderQuantityBody>,
) -> Result<HttpResponse, ApiError> {
    let at = stamp(&caller);
    Ok(answer(change_inventory(&state, id.into_inner(), |r| r.commit(body.quantity, body.order_id, at)).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/inventory/{id}/adjust", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = AdjustBody,
    responses((status = 200, body = StockChangeView, description = "On hand corrected; an Adjustment movement"),
              (status = 400, description = "INVALID_QUANTITY (delta 0), VALIDATION_ERROR (reason)"),
              (status = 404, description = "NOT_FOUND"), (status = 409, description = "INSUFFICIENT_STOCK: below reserved")),
    security(("bearer" = [])))]
pub async fn adjust(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<AdjustBody>,
) -> Result<HttpResponse, ApiError> {
    let at = stamp(&caller);
    Ok(answer(change_inventory(&state, id.into_inner(), |r| r.adjust(body.quantity_delta, &body.reason, at)).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/inventory/{id}/damage", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = DamageBody,
    responses((status = 200, body = StockChangeView, description = "On hand lowered; a Damage movement"),
              (status = 400, description = "INVALID_QUANTITY, VALIDATION_ERROR (reason)"),
              (status = 404, description = "NOT_FOUND"), (status = 409, description = "INSUFFICIENT_STOCK: below reserved")),
    security(("bearer" = [])))]
pub async fn damage(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<DamageBody>,
) -> Result<HttpResponse, ApiError> {
    let at = stamp(&caller);
    Ok(answer(change_inventory(&state, id.into_inner(), |r| r.damage(body.quantity, &body.reason, at)).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/inventory/{id}/return", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = ReturnBody,
    responses((status = 200, body = StockChangeView, description = "On hand raised; a Return movement"),
              (status = 400, description = "INVALID_QUANTITY"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn return_stock(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<ReturnBody>,
) -> Result<HttpResponse, ApiError> {
    let at = stamp(&caller);
    let reason = body.reason.as_deref();
    Ok(answer(
        change_inventory(&state, id.into_inner(), |r| r.return_stock(body.quantity, body.order_id, reason, at)).await?,
    ))
}

#[utoipa::path(post, path = "/api/v1/warehouse/inventory/{id}/transfer", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = TransferBody,
    responses((status = 200, body = TransferView, description = "Both records and a Transfer movement at each end"),
              (status = 400, description = "INVALID_QUANTITY, VALIDATION_ERROR (to_location_id)"),
              (status = 404, description = "NOT_FOUND: record or destination location"),
              (status = 409, description = "INSUFFICIENT_STOCK: below reserved")),
    security(("bearer" = [])))]
pub async fn transfer(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<TransferBody>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let at = stamp(&caller);
    state.commerce.locations.get(body.to_location_id).await.map_err(|e| repo_error("destination location", e))?;
    let (state, body) = (&state, &body);
    let change = until_settled(|| async move {
        let source = load_inventory(state, id).await?;
        let found = state
            .commerce
            .inventory
            .find(source.product_id, body.to_location_id)
            .await
            .map_err(|e| repo_error("inventory record", e))?;
        // A destination without a record gets an empty one, inserted with the transfer.
        let destination = match found {
            Some(record) => record,
            None => {
                let input = NewInventory {
                    product_id: source.product_id,
                    location_id: body.to_location_id,
                    quantity_on_hand: None,
                    thresholds: Thresholds::default(),
                };
                Inventory::create(input, at).map_err(|e| warehouse_error(&e))?.0
            }
        };
        let change = source.transfer(&destination, body.quantity, at).map_err(|e| warehouse_error(&e))?;
        match state.commerce.inventory.apply_transfer(&change).await {
            Ok(()) => Ok(Attempt::Done(change)),
            Err(RepoError::Storage(StorageError::Stale)) => Ok(Attempt::Stale),
            Err(other) => Err(repo_error("inventory record", other)),
        }
    })
    .await?;
    Ok(ok(TransferView {
        from: InventoryView::from(&change.from.inventory),
        to: InventoryView::from(&change.to.inventory),
        movements: vec![MovementView::from(change.from.movement), MovementView::from(change.to.movement)],
    }))
}
