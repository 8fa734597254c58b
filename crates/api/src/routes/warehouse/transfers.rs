//! Transfers between locations as documents: create, read, list, ship, receive, cancel
//! (`transfers:*`; docs/purchasing-and-transfers.md). Each move answers the whole transfer.

use actix_web::{web, HttpResponse};
use uuid::Uuid;
use warehouse_domain::transfers::{NewTransfer, NewTransferLine, TransferFilter, TransferStatus};

use super::purchasing_requests::{TransferDocumentBody, TransferListQuery};
use super::purchasing_responses::TransferDocumentView;
use super::warehouse_error;
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{list, ApiError, Json, PageQuery};
use crate::routes::query_params;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/transfers").route(web::get().to(list_transfers)).route(web::post().to(create_transfer)),
    )
    .service(web::resource("/transfers/{id}").route(web::get().to(get_transfer)))
    .service(web::resource("/transfers/{id}/ship").route(web::post().to(ship_transfer)))
    .service(web::resource("/transfers/{id}/receive").route(web::post().to(receive_transfer)))
    .service(web::resource("/transfers/{id}/cancel").route(web::post().to(cancel_transfer)));
}

#[utoipa::path(post, path = "/api/v1/warehouse/transfers", tag = "purchasing", request_body = TransferDocumentBody,
    responses((status = 201, body = TransferDocumentView, description = "A draft, numbered TR-<year>-<6 digits>"),
              (status = 400, description = "VALIDATION_ERROR (same locations, no line, a product twice, an inactive location), INVALID_QUANTITY"),
              (status = 404, description = "NOT_FOUND: a location or product"),
              (status = 409, description = "DOCUMENT_NUMBERS_EXHAUSTED: the year's 999 999 numbers are taken")),
    security(("bearer" = [])))]
pub async fn create_transfer(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<TransferDocumentBody>,
) -> Result<HttpResponse, ApiError> {
    let input = NewTransfer {
        from_location_id: body.from_location_id,
        to_location_id: body.to_location_id,
        lines: body.lines.iter().map(|l| NewTransferLine { product_id: l.product_id, quantity: l.quantity }).collect(),
        notes: body.notes,
    };
    let transfer = state.commerce.warehouse.transfers.create(input, caller.user_id).await?;
    Ok(created_tagged::<TransferDocumentView, _>(transfer))
}

#[utoipa::path(get, path = "/api/v1/warehouse/transfers", tag = "purchasing", params(TransferListQuery),
    responses((status = 200, body = [TransferDocumentView], description = "Newest first, paginated"),
              (status = 400, description = "VALIDATION_ERROR, INVALID_UUID for an id filter")),
    security(("bearer" = [])))]
pub async fn list_transfers(
    state: web::Data<AppState>,
    query: web::Query<TransferListQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = PageQuery { page: query.page, page_size: query.page_size }.request()?;
    let status =
        query_params::present(&query.status).map(TransferStatus::parse).transpose().map_err(|e| warehouse_error(&e))?;
    let filter = TransferFilter {
        status,
        from_location_id: query_params::uuid("from_location_id", &query.from_location_id)?,
        to_location_id: query_params::uuid("to_location_id", &query.to_location_id)?,
    };
    let found = state.commerce.warehouse.documents.transfers.list(&filter, page).await?;
    Ok(list(found.map(TransferDocumentView::from)))
}

#[utoipa::path(get, path = "/api/v1/warehouse/transfers/{id}", tag = "purchasing", params(("id" = Uuid, Path)),
    responses((status = 200, body = TransferDocumentView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_transfer(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<TransferDocumentView, _>(state.commerce.warehouse.transfers.get(id.into_inner()).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/transfers/{id}/ship", tag = "purchasing", params(("id" = Uuid, Path)),
    responses((status = 200, body = TransferDocumentView, description = "draft → in_transit: every line taken off the source, one Transfer movement each"),
              (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "INSUFFICIENT_STOCK: a line is short (nothing moves); INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn ship_transfer(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let transfer = state.commerce.warehouse.transfers.ship(id.into_inner(), caller.user_id).await?;
    Ok(ok_tagged::<TransferDocumentView, _>(transfer))
}

#[utoipa::path(post, path = "/api/v1/warehouse/transfers/{id}/receive", tag = "purchasing", params(("id" = Uuid, Path)),
    responses((status = 200, body = TransferDocumentView, description = "in_transit → received: every line added at the destination (its record made if missing)"),
              (status = 404, description = "NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn receive_transfer(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let transfer = state.commerce.warehouse.transfers.receive(id.into_inner(), caller.user_id).await?;
    Ok(ok_tagged::<TransferDocumentView, _>(transfer))
}

#[utoipa::path(post, path = "/api/v1/warehouse/transfers/{id}/cancel", tag = "purchasing", params(("id" = Uuid, Path)),
    responses((status = 200, body = TransferDocumentView, description = "From draft, or from in_transit putting the stock back at the source"),
              (status = 404, description = "NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn cancel_transfer(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let transfer = state.commerce.warehouse.transfers.cancel(id.into_inner(), caller.user_id).await?;
    Ok(ok_tagged::<TransferDocumentView, _>(transfer))
}
