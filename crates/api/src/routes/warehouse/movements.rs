//! The stock ledger: posting an operation as a movement, and reading movements (`stock_movements:*`).

use actix_web::{web, HttpResponse};
use uuid::Uuid;
use warehouse_domain::application::MovementRequest;
use warehouse_domain::{MovementFilter, MovementType, RecentLimit};

use super::inventory::load_inventory;
use super::inventory_ops::stock;
use super::requests::{MovementBody, MovementListQuery, MovementTypeName, RecentQuery};
use super::responses::MovementView;
use super::{repo_error, warehouse_error};
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{list, ok, ApiError, Json, PageQuery};
use crate::routes::query_params;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/stock-movements").route(web::get().to(list_movements)).route(web::post().to(post_movement)),
    )
    .service(web::resource("/stock-movements/recent").route(web::get().to(recent_movements)))
    .service(web::resource("/stock-movements/inventory/{id}").route(web::get().to(inventory_movements)))
    .service(web::resource("/stock-movements/reference/{reference_id}").route(web::get().to(reference_movements)))
    .service(web::resource("/stock-movements/type/{type}").route(web::get().to(type_movements)))
    .service(web::resource("/stock-movements/{id}").route(web::get().to(get_movement)));
}

async fn movements_page(state: &AppState, filter: MovementFilter, page: &PageQuery) -> Result<HttpResponse, ApiError> {
    let movements =
        state.commerce.movements.list(&filter, page.request()?).await.map_err(|e| repo_error("stock movement", e))?;
    Ok(list(movements.map(MovementView::from)))
}

#[utoipa::path(post, path = "/api/v1/warehouse/stock-movements", tag = "warehouse", request_body = MovementBody,
    responses((status = 201, body = MovementView, description = "The operation was performed; this is its movement"),
              (status = 400, description = "VALIDATION_ERROR (type other than Receipt, Adjustment, Damage, Return; missing field), INVALID_QUANTITY"),
              (status = 404, description = "NOT_FOUND"), (status = 409, description = "INSUFFICIENT_STOCK")),
    security(("bearer" = [])))]
pub async fn post_movement(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<MovementBody>,
) -> Result<HttpResponse, ApiError> {
    let request = MovementRequest {
        movement_type: body.movement_type,
        quantity: body.quantity,
        quantity_delta: body.quantity_delta,
        unit_cost: body.unit_cost,
        currency: body.currency,
        reference_type: body.reference_type,
        reference_id: body.reference_id,
        order_id: body.order_id,
        reason: body.reason,
    };
    let change = stock(&state).post(body.inventory_id, request, caller.user_id).await?;
    Ok(created_tagged::<MovementView, _>(change.value.movement))
}

/// `GET /stock-movements`' filters as the list and its export read them (blank is absent).
pub(crate) fn movement_filter(q: &MovementListQuery) -> Result<MovementFilter, ApiError> {
    let filter = MovementFilter {
        movement_type: query_params::present(&q.movement_type)
            .map(MovementType::parse)
            .transpose()
            .map_err(|e| warehouse_error(&e))?,
        inventory_id: query_params::uuid("inventory_id", &q.inventory_id)?,
        product_id: query_params::uuid("product_id", &q.product_id)?,
        location_id: query_params::uuid("location_id", &q.location_id)?,
        reference_id: query_params::uuid("reference_id", &q.reference_id)?,
        date_from: query_params::date("date_from", &q.date_from)?,
        date_to: query_params::date("date_to", &q.date_to)?,
    };
    filter.validate().map_err(|e| warehouse_error(&e))?;
    Ok(filter)
}

#[utoipa::path(get, path = "/api/v1/warehouse/stock-movements", tag = "warehouse", params(PageQuery, MovementListQuery),
    responses((status = 200, body = [MovementView], description = "Newest first, paginated"),
              (status = 400, description = "VALIDATION_ERROR (type, dates), INVALID_UUID (id filters)")),
    security(("bearer" = [])))]
pub async fn list_movements(
    state: web::Data<AppState>,
    page: web::Query<PageQuery>,
    query: web::Query<MovementListQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = movement_filter(&query)?;
    movements_page(&state, filter, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/stock-movements/recent", tag = "warehouse", params(RecentQuery),
    responses((status = 200, body = [MovementView], description = "The newest `limit` movements (not paginated)"),
              (status = 400, description = "VALIDATION_ERROR: limit outside 1..=100")),
    security(("bearer" = [])))]
pub async fn recent_movements(
    state: web::Data<AppState>,
    query: web::Query<RecentQuery>,
) -> Result<HttpResponse, ApiError> {
    let limit = RecentLimit::new(query.limit).map_err(|e| warehouse_error(&e))?;
    let movements = state.commerce.movements.recent(limit).await.map_err(|e| repo_error("stock movement", e))?;
    Ok(ok(movements.iter().map(MovementView::from).collect::<Vec<_>>()))
}

#[utoipa::path(get, path = "/api/v1/warehouse/stock-movements/inventory/{id}", tag = "warehouse",
    params(("id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [MovementView], description = "The record's movements, newest first"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn inventory_movements(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let record = load_inventory(&state, id.into_inner()).await?;
    movements_page(&state, MovementFilter { inventory_id: Some(record.id), ..MovementFilter::default() }, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/stock-movements/reference/{reference_id}", tag = "warehouse",
    params(("reference_id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [MovementView], description = "Movements referencing an order, purchase order or transfer")),
    security(("bearer" = [])))]
pub async fn reference_movements(
    state: web::Data<AppState>,
    reference_id: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = MovementFilter { reference_id: Some(reference_id.into_inner()), ..MovementFilter::default() };
    movements_page(&state, filter, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/stock-movements/type/{type}", tag = "warehouse",
    params(("type" = inline(MovementTypeName), Path, example = "Receipt"), PageQuery),
    responses((status = 200, body = [MovementView]), (status = 400, description = "VALIDATION_ERROR: unknown type")),
    security(("bearer" = [])))]
pub async fn type_movements(
    state: web::Data<AppState>,
    kind: web::Path<String>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let kind = MovementType::parse(&kind).map_err(|e| warehouse_error(&e))?;
    movements_page(&state, MovementFilter { movement_type: Some(kind), ..MovementFilter::default() }, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/stock-movements/{id}", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 200, body = MovementView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_movement(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let movement = state.commerce.movements.get(id.into_inner()).await.map_err(|e| repo_error("stock movement", e))?;
    Ok(ok_tagged::<MovementView, _>(movement))
}
