//! Inventory records: create (with optional initial stock), read, thresholds, delete, lists.

use actix_web::{web, HttpResponse};
use uuid::Uuid;
use warehouse_domain::{Inventory, InventoryFilter, NewInventory, Thresholds};

use super::inventory_ops as ops;
use super::repo_error;
use super::requests::{CreateInventoryBody, InventoryListQuery, ThresholdsBody};
use super::responses::InventoryView;
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{list, no_content, ApiError, Json, PageQuery};
use crate::routes::query_params;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/inventory").route(web::get().to(list_inventory)).route(web::post().to(create_inventory)),
    )
    .service(web::resource("/inventory/low-stock").route(web::get().to(low_stock)))
    .service(
        web::resource("/inventory/{id}")
            .route(web::get().to(get_inventory))
            .route(web::put().to(update_inventory))
            .route(web::delete().to(delete_inventory)),
    )
    .service(web::resource("/inventory/{id}/receive").route(web::post().to(ops::receive)))
    .service(web::resource("/inventory/{id}/reserve").route(web::post().to(ops::reserve)))
    .service(web::resource("/inventory/{id}/release").route(web::post().to(ops::release)))
    .service(web::resource("/inventory/{id}/commit").route(web::post().to(ops::commit)))
    .service(web::resource("/inventory/{id}/adjust").route(web::post().to(ops::adjust)))
    .service(web::resource("/inventory/{id}/transfer").route(web::post().to(ops::transfer)))
    .service(web::resource("/inventory/{id}/damage").route(web::post().to(ops::damage)))
    .service(web::resource("/inventory/{id}/return").route(web::post().to(ops::return_stock)));
}

/// The views of `records` with their incoming stock, read in one query for all of them. The port
/// answers one figure per record; another count is a fault of the adapter, not a zero.
pub(crate) async fn with_incoming(state: &AppState, records: &[&Inventory]) -> Result<Vec<InventoryView>, ApiError> {
    let keys: Vec<(Uuid, Uuid)> = records.iter().map(|r| (r.product_id, r.location_id)).collect();
    let incoming = state.commerce.inventory.incoming(&keys).await?;
    if incoming.len() != records.len() {
        return Err(miscounted());
    }
    Ok(records
        .iter()
        .zip(incoming)
        .map(|(record, incoming)| InventoryView::from(*record).with_incoming(incoming))
        .collect())
}

fn miscounted() -> ApiError {
    ApiError::internal("incoming stock was answered for another number of records")
}

/// One record's view with its incoming stock (for a read: a write answers the figure its
/// transaction read, `warehouse_domain::WithIncoming`).
pub(crate) async fn view(state: &AppState, record: &Inventory) -> Result<InventoryView, ApiError> {
    with_incoming(state, &[record]).await?.pop().ok_or_else(miscounted)
}

/// One page of inventory records as the list envelope; every inventory list uses it.
pub(crate) async fn inventory_page(
    state: &AppState,
    filter: InventoryFilter,
    page: shared_kernel::PageRequest,
) -> Result<HttpResponse, ApiError> {
    let records = state.commerce.inventory.list(&filter, page).await.map_err(|e| repo_error("inventory record", e))?;
    let items = with_incoming(state, &records.items.iter().collect::<Vec<_>>()).await?;
    let shared_kernel::Page { total, total_exact, page, page_size, .. } = records;
    Ok(list(shared_kernel::Page { items, total, total_exact, page, page_size }))
}

pub(crate) async fn load_inventory(state: &AppState, id: Uuid) -> Result<Inventory, ApiError> {
    Ok(state.commerce.warehouse.inventory.get(id).await?)
}

#[utoipa::path(post, path = "/api/v1/warehouse/inventory", tag = "warehouse", request_body = CreateInventoryBody,
    responses((status = 201, body = InventoryView, description = "An initial quantity is recorded as a Receipt movement"),
              (status = 400, description = "INVALID_QUANTITY, VALIDATION_ERROR (thresholds)"),
              (status = 404, description = "NOT_FOUND: product or location"),
              (status = 409, description = "ALREADY_EXISTS: the product already has a record at the location")),
    security(("bearer" = [])))]
pub async fn create_inventory(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<CreateInventoryBody>,
) -> Result<HttpResponse, ApiError> {
    let input = NewInventory {
        product_id: body.product_id,
        location_id: body.location_id,
        quantity_on_hand: body.quantity_on_hand,
        thresholds: Thresholds {
            reorder_point: body.reorder_point,
            min_stock: body.min_stock,
            max_stock: body.max_stock,
        },
    };
    let record = state.commerce.warehouse.inventory.create(input, caller.user_id).await?;
    Ok(created_tagged::<InventoryView, _>(InventoryView::from(&record)))
}

/// `GET /inventory`'s filters as the list and its export read them.
pub(crate) fn inventory_filter(query: &InventoryListQuery) -> Result<InventoryFilter, ApiError> {
    Ok(InventoryFilter {
        product_id: query_params::uuid("product_id", &query.product_id)?,
        location_id: query_params::uuid("location_id", &query.location_id)?,
        low_stock: query.low_stock.unwrap_or(false),
    })
}

#[utoipa::path(get, path = "/api/v1/warehouse/inventory", tag = "warehouse", params(PageQuery, InventoryListQuery),
    responses((status = 200, body = [InventoryView], description = "Newest first, paginated"),
              (status = 400, description = "INVALID_UUID for an id filter")),
    security(("bearer" = [])))]
pub async fn list_inventory(
    state: web::Data<AppState>,
    page: web::Query<PageQuery>,
    query: web::Query<InventoryListQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = inventory_filter(&query)?;
    inventory_page(&state, filter, page.request()?).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/inventory/low-stock", tag = "warehouse", params(PageQuery),
    responses((status = 200, body = [InventoryView], description = "Records with available ≤ reorder point")),
    security(("bearer" = [])))]
pub async fn low_stock(state: web::Data<AppState>, page: web::Query<PageQuery>) -> Result<HttpResponse, ApiError> {
    let filter = InventoryFilter { low_stock: true, ..InventoryFilter::default() };
    inventory_page(&state, filter, page.request()?).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/inventory/{id}", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 200, body = InventoryView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_inventory(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let record = load_inventory(&state, id.into_inner()).await?;
    Ok(ok_tagged::<InventoryView, _>(view(&state, &record).await?))
}

#[utoipa::path(put, path = "/api/v1/warehouse/inventory/{id}", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = ThresholdsBody,
    responses((status = 200, body = InventoryView, description = "Only the thresholds change"),
              (status = 400, description = "VALIDATION_ERROR"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn update_inventory(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<ThresholdsBody>,
) -> Result<HttpResponse, ApiError> {
    let thresholds =
        Thresholds { reorder_point: body.reorder_point, min_stock: body.min_stock, max_stock: body.max_stock };
    let updated = state.commerce.warehouse.inventory.set_thresholds(id.into_inner(), thresholds).await?;
    Ok(ok_tagged::<InventoryView, _>(InventoryView::from(&updated)))
}

#[utoipa::path(delete, path = "/api/v1/warehouse/inventory/{id}", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted"), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "STOCK_RESERVED: the record holds reservations")),
    security(("bearer" = [])))]
pub async fn delete_inventory(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.commerce.warehouse.inventory.delete(id.into_inner()).await?;
    Ok(no_content())
}
