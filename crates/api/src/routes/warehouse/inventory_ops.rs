//! Quantity operations on one record (`inventory:update`): receive, reserve, release, commit,
//! adjust, damage, return — and transfer between two records. Each writes exactly one movement per
//! record it changes, in the transaction of the change (`warehouse_domain::application::StockOperations`).

use actix_web::{web, HttpResponse};
use uuid::Uuid;
use warehouse_domain::application::{ReceiptRequest, StockOperations, Stocked};

use super::requests::{AdjustBody, DamageBody, OrderQuantityBody, ReceiveBody, ReturnBody, TransferBody};
use super::responses::{InventoryView, MovementView, StockChangeView, TransferView};
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::{Tagged, Versioned};
use crate::http::{ok, ApiError, Json};

/// The quantity operations, with the configured reporting currency.
pub(crate) fn stock(state: &AppState) -> StockOperations {
    state.commerce.warehouse.stock(state.settings.reporting_currency)
}

/// Tagged as the inventory record it changed (the resource the route names), with the incoming
/// stock the change's transaction read: nothing is read after the commit.
fn answer(change: Stocked) -> HttpResponse {
    let inventory = InventoryView::from(&change.inventory).with_incoming(change.incoming);
    let tag = inventory.entity_tag();
    ok(StockChangeView { inventory, movement: MovementView::from(change.value.movement) }).tagged(&tag)
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
    let receipt = ReceiptRequest {
        quantity: body.quantity,
        unit_cost: body.unit_cost,
        currency: body.currency,
        reference_type: body.reference_type,
        reference_id: body.reference_id,
        reason: body.reason,
    };
    Ok(answer(stock(&state).receive(id.into_inner(), receipt, caller.user_id).await?))
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
    Ok(answer(stock(&state).reserve(id.into_inner(), body.quantity, body.order_id, caller.user_id).await?))
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
    Ok(answer(stock(&state).release(id.into_inner(), body.quantity, body.order_id, caller.user_id).await?))
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
    Ok(answer(stock(&state).commit(id.into_inner(), body.quantity, body.order_id, caller.user_id).await?))
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
    Ok(answer(stock(&state).adjust(id.into_inner(), body.quantity_delta, &body.reason, caller.user_id).await?))
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
    Ok(answer(stock(&state).damage(id.into_inner(), body.quantity, &body.reason, caller.user_id).await?))
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
    let reason = body.reason.as_deref();
    let change =
        stock(&state).return_stock(id.into_inner(), body.quantity, body.order_id, reason, caller.user_id).await?;
    Ok(answer(change))
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
    let moved = stock(&state).transfer(id.into_inner(), body.to_location_id, body.quantity, caller.user_id).await?;
    let [from_incoming, to_incoming] = moved.incoming;
    let change = moved.value;
    Ok(ok(TransferView {
        from: InventoryView::from(&change.from.inventory).with_incoming(from_incoming),
        to: InventoryView::from(&change.to.inventory).with_incoming(to_incoming),
        movements: vec![MovementView::from(change.from.movement), MovementView::from(change.to.movement)],
    }))
}
