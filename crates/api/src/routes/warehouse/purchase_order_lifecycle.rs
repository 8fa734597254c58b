//! Purchase order moves: submit, receive, cancel, close, and drafts made from the reorder
//! suggestions (`purchase_orders:update`, `:create`; docs/purchasing-and-transfers.md). Each answers
//! the whole purchase order.

use actix_web::{web, HttpResponse};
use uuid::Uuid;
use warehouse_domain::purchasing::{ReceiveInput, ReceiveLine};

use super::purchase_orders::purchasing;
use super::purchasing_requests::{FromSuggestionsBody, PurchaseReceiveBody};
use super::purchasing_responses::{DraftedPurchasesView, PurchaseOrderView};
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::ok_tagged;
use crate::http::{created, ApiError, Json};

#[utoipa::path(post, path = "/api/v1/warehouse/purchase-orders/{id}/submit", tag = "purchasing",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = PurchaseOrderView, description = "draft → ordered; its lines count as incoming stock"),
              (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "PO_EMPTY: no lines; INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn submit_purchase_order(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<PurchaseOrderView, _>(purchasing(&state).submit(id.into_inner()).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/purchase-orders/{id}/receive", tag = "purchasing",
    params(("id" = Uuid, Path)), request_body = PurchaseReceiveBody,
    responses((status = 200, body = PurchaseOrderView, description = "partially_received, or received when every line is complete; one Receipt movement per line"),
              (status = 400, description = "INVALID_QUANTITY, VALIDATION_ERROR (no line, a line named twice)"),
              (status = 404, description = "NOT_FOUND: purchase order or line"),
              (status = 409, description = "OVER_RECEIPT: a line above what is outstanding (nothing is received); INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn receive_purchase_order(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<PurchaseReceiveBody>,
) -> Result<HttpResponse, ApiError> {
    let input = ReceiveInput {
        lines: body.lines.iter().map(|l| ReceiveLine { line_id: l.line_id, quantity: l.quantity }).collect(),
        reason: body.reason,
    };
    let po = purchasing(&state).receive(id.into_inner(), input, caller.user_id).await?;
    Ok(ok_tagged::<PurchaseOrderView, _>(po))
}

#[utoipa::path(post, path = "/api/v1/warehouse/purchase-orders/{id}/cancel", tag = "purchasing",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = PurchaseOrderView, description = "draft, or ordered with nothing received → cancelled"),
              (status = 404, description = "NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn cancel_purchase_order(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<PurchaseOrderView, _>(purchasing(&state).cancel(id.into_inner()).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/purchase-orders/{id}/close", tag = "purchasing",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = PurchaseOrderView, description = "partially_received → closed: the rest is no longer expected"),
              (status = 404, description = "NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn close_purchase_order(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<PurchaseOrderView, _>(purchasing(&state).close(id.into_inner()).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/purchase-orders/from-suggestions", tag = "purchasing",
    request_body = FromSuggestionsBody,
    responses((status = 201, body = DraftedPurchasesView, description = "One draft per supplier (several of at most 200 lines when there are more), all in one transaction; skipped products with the reason"),
              (status = 400, description = "VALIDATION_ERROR: an inactive location"),
              (status = 404, description = "NOT_FOUND: location or supplier"),
              (status = 409, description = "DOCUMENT_NUMBERS_EXHAUSTED: the year's 999 999 numbers are taken")),
    security(("bearer" = [])))]
pub async fn purchase_orders_from_suggestions(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<FromSuggestionsBody>,
) -> Result<HttpResponse, ApiError> {
    let drafted = purchasing(&state).draft_from_suggestions(body.location_id, body.supplier_id, caller.user_id).await?;
    Ok(created(DraftedPurchasesView::from(drafted)))
}
