//! Purchase orders: create, read, list, and their lines while in draft (`purchase_orders:*`;
//! docs/purchasing-and-transfers.md). The state moves are in `purchase_order_lifecycle.rs`.

use actix_web::{web, HttpResponse};
use uuid::Uuid;
use warehouse_domain::application::{PurchaseLineRequest, PurchaseOrderRequest, PurchasingService};
use warehouse_domain::numbers::PurchaseOrderNumber;
use warehouse_domain::purchasing::{PurchaseLineUpdate, PurchaseOrderFilter, PurchaseOrderStatus};

use super::purchase_order_lifecycle as lifecycle;
use super::purchasing_requests::{
    PurchaseLineBody, PurchaseLineChangesBody, PurchaseOrderBody, PurchaseOrderListQuery,
};
use super::purchasing_responses::PurchaseOrderView;
use super::warehouse_error;
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{list, ApiError, Json, PageQuery};
use crate::routes::query_params;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/purchase-orders")
            .route(web::get().to(list_purchase_orders))
            .route(web::post().to(create_purchase_order)),
    )
    .service(
        web::resource("/purchase-orders/from-suggestions")
            .route(web::post().to(lifecycle::purchase_orders_from_suggestions)),
    )
    .service(web::resource("/purchase-orders/number/{po_number}").route(web::get().to(purchase_order_by_number)))
    .service(web::resource("/purchase-orders/{id}").route(web::get().to(get_purchase_order)))
    .service(web::resource("/purchase-orders/{id}/lines").route(web::post().to(add_purchase_order_line)))
    .service(
        web::resource("/purchase-orders/{id}/lines/{line_id}")
            .route(web::put().to(change_purchase_order_line))
            .route(web::delete().to(remove_purchase_order_line)),
    )
    .service(web::resource("/purchase-orders/{id}/submit").route(web::post().to(lifecycle::submit_purchase_order)))
    .service(web::resource("/purchase-orders/{id}/receive").route(web::post().to(lifecycle::receive_purchase_order)))
    .service(web::resource("/purchase-orders/{id}/cancel").route(web::post().to(lifecycle::cancel_purchase_order)))
    .service(web::resource("/purchase-orders/{id}/close").route(web::post().to(lifecycle::close_purchase_order)));
}

/// The purchase order use cases, with the configured reporting currency.
pub(crate) fn purchasing(state: &AppState) -> PurchasingService {
    state.commerce.warehouse.purchasing(state.settings.reporting_currency)
}

fn line_request(line: PurchaseLineBody) -> PurchaseLineRequest {
    PurchaseLineRequest { product_id: line.product_id, quantity: line.quantity, unit_cost: line.unit_cost }
}

#[utoipa::path(post, path = "/api/v1/warehouse/purchase-orders", tag = "purchasing", request_body = PurchaseOrderBody,
    responses((status = 201, body = PurchaseOrderView, description = "A draft, numbered PO-<year>-<6 digits>"),
              (status = 400, description = "VALIDATION_ERROR naming the field (an inactive supplier, location or currency, a discontinued product), INVALID_QUANTITY"),
              (status = 404, description = "NOT_FOUND: supplier, location or product"),
              (status = 409, description = "DOCUMENT_NUMBERS_EXHAUSTED: the year's 999 999 numbers are taken")),
    security(("bearer" = [])))]
pub async fn create_purchase_order(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<PurchaseOrderBody>,
) -> Result<HttpResponse, ApiError> {
    let expected_at = query_params::timestamp("expected_at", &body.expected_at)?;
    let currency = state.commerce.warehouse.active_currency(&body.currency).await?;
    let request = PurchaseOrderRequest {
        supplier_id: body.supplier_id,
        location_id: body.location_id,
        currency,
        expected_at,
        notes: body.notes,
        lines: body.lines.unwrap_or_default().into_iter().map(line_request).collect(),
    };
    let po = purchasing(&state).create(request, caller.user_id).await?;
    Ok(created_tagged::<PurchaseOrderView, _>(po))
}

#[utoipa::path(get, path = "/api/v1/warehouse/purchase-orders", tag = "purchasing", params(PurchaseOrderListQuery),
    responses((status = 200, body = [PurchaseOrderView], description = "Newest first, paginated"),
              (status = 400, description = "VALIDATION_ERROR, INVALID_UUID for an id filter")),
    security(("bearer" = [])))]
pub async fn list_purchase_orders(
    state: web::Data<AppState>,
    query: web::Query<PurchaseOrderListQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = PageQuery { page: query.page, page_size: query.page_size }.request()?;
    let status = query_params::present(&query.status)
        .map(PurchaseOrderStatus::parse)
        .transpose()
        .map_err(|e| warehouse_error(&e))?;
    let filter = PurchaseOrderFilter {
        status,
        supplier_id: query_params::uuid("supplier_id", &query.supplier_id)?,
        location_id: query_params::uuid("location_id", &query.location_id)?,
        date_from: query_params::date("date_from", &query.date_from)?,
        date_to: query_params::date("date_to", &query.date_to)?,
    };
    filter.validate().map_err(|e| warehouse_error(&e))?;
    let found = state.commerce.warehouse.documents.purchase_orders.list(&filter, page).await?;
    Ok(list(found.map(PurchaseOrderView::from)))
}

#[utoipa::path(get, path = "/api/v1/warehouse/purchase-orders/{id}", tag = "purchasing", params(("id" = Uuid, Path)),
    responses((status = 200, body = PurchaseOrderView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_purchase_order(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<PurchaseOrderView, _>(purchasing(&state).get(id.into_inner()).await?))
}

#[utoipa::path(get, path = "/api/v1/warehouse/purchase-orders/number/{po_number}", tag = "purchasing",
    params(("po_number" = String, Path, description = "PO-<year>-<6 digits>")),
    responses((status = 200, body = PurchaseOrderView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn purchase_order_by_number(
    state: web::Data<AppState>,
    number: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    // A text that is no purchase order number names none.
    let number = PurchaseOrderNumber::parse(&number).map_err(|_| ApiError::not_found("purchase order not found"))?;
    let po = state
        .commerce
        .warehouse
        .documents
        .purchase_orders
        .get_by_number(&number)
        .await
        .map_err(|e| super::repo_error("purchase order", e))?;
    Ok(ok_tagged::<PurchaseOrderView, _>(po))
}

#[utoipa::path(post, path = "/api/v1/warehouse/purchase-orders/{id}/lines", tag = "purchasing",
    params(("id" = Uuid, Path)), request_body = PurchaseLineBody,
    responses((status = 200, body = PurchaseOrderView, description = "The whole purchase order"),
              (status = 400, description = "INVALID_QUANTITY, VALIDATION_ERROR"),
              (status = 404, description = "NOT_FOUND: purchase order or product"),
              (status = 409, description = "PO_NOT_EDITABLE: not a draft")),
    security(("bearer" = [])))]
pub async fn add_purchase_order_line(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<PurchaseLineBody>,
) -> Result<HttpResponse, ApiError> {
    let po = purchasing(&state).add_line(id.into_inner(), line_request(body)).await?;
    Ok(ok_tagged::<PurchaseOrderView, _>(po))
}

#[utoipa::path(put, path = "/api/v1/warehouse/purchase-orders/{id}/lines/{line_id}", tag = "purchasing",
    params(("id" = Uuid, Path), ("line_id" = Uuid, Path)), request_body = PurchaseLineChangesBody,
    responses((status = 200, body = PurchaseOrderView, description = "The whole purchase order"),
              (status = 400, description = "INVALID_QUANTITY, VALIDATION_ERROR"),
              (status = 404, description = "NOT_FOUND: purchase order or line"),
              (status = 409, description = "PO_NOT_EDITABLE: not a draft")),
    security(("bearer" = [])))]
pub async fn change_purchase_order_line(
    state: web::Data<AppState>,
    path: web::Path<(Uuid, Uuid)>,
    Json(body): Json<PurchaseLineChangesBody>,
) -> Result<HttpResponse, ApiError> {
    let (id, line_id) = path.into_inner();
    let update = PurchaseLineUpdate { quantity: body.quantity, unit_cost: body.unit_cost };
    let po = purchasing(&state).change_line(id, line_id, update).await?;
    Ok(ok_tagged::<PurchaseOrderView, _>(po))
}

#[utoipa::path(delete, path = "/api/v1/warehouse/purchase-orders/{id}/lines/{line_id}", tag = "purchasing",
    params(("id" = Uuid, Path), ("line_id" = Uuid, Path)),
    responses((status = 200, body = PurchaseOrderView, description = "The whole purchase order"),
              (status = 404, description = "NOT_FOUND: purchase order or line"),
              (status = 409, description = "PO_NOT_EDITABLE: not a draft")),
    security(("bearer" = [])))]
pub async fn remove_purchase_order_line(
    state: web::Data<AppState>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (id, line_id) = path.into_inner();
    let po = purchasing(&state).remove_line(id, line_id).await?;
    Ok(ok_tagged::<PurchaseOrderView, _>(po))
}
