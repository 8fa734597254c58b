//! Location look-ups and lists, and a location's stock: its records, movements and utilization.

use actix_web::{web, HttpResponse};
use uuid::Uuid;
use warehouse_domain::{InventoryFilter, LocationFilter, LocationType, MovementFilter};

use super::locations::load_location;
use super::requests::{LocationListQuery, LocationTypeName};
use super::responses::{InventoryView, LocationView, MovementView, UtilizationView};
use super::{repo_error, warehouse_error};
use crate::app::AppState;
use crate::http::conditional::ok_tagged;
use crate::http::{list, ok, ApiError, PageQuery};
use crate::routes::query_params::present;

async fn locations_page(state: &AppState, filter: LocationFilter, page: &PageQuery) -> Result<HttpResponse, ApiError> {
    let locations =
        state.commerce.locations.list(&filter, page.request()?).await.map_err(|e| repo_error("location", e))?;
    Ok(list(locations.map(LocationView::from)))
}

#[utoipa::path(get, path = "/api/v1/warehouse/locations", tag = "warehouse", params(LocationListQuery),
    responses((status = 200, body = [LocationView], description = "Newest first, paginated"),
              (status = 400, description = "VALIDATION_ERROR (type, country)")),
    security(("bearer" = [])))]
pub async fn list_locations(
    state: web::Data<AppState>,
    query: web::Query<LocationListQuery>,
) -> Result<HttpResponse, ApiError> {
    let q = query.into_inner();
    let location_type =
        present(&q.location_type).map(LocationType::parse).transpose().map_err(|e| warehouse_error(&e))?;
    let country = match present(&q.country) {
        Some(code) => Some(state.commerce.warehouse.locations.country(code).await?),
        None => None,
    };
    let filter = LocationFilter { location_type, country, is_active: q.is_active, search: q.search };
    locations_page(&state, filter, &PageQuery { page: q.page, page_size: q.page_size }).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/locations/active", tag = "warehouse", params(PageQuery),
    responses((status = 200, body = [LocationView], description = "Active locations, paginated")),
    security(("bearer" = [])))]
pub async fn active_locations(
    state: web::Data<AppState>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    locations_page(&state, LocationFilter { is_active: Some(true), ..LocationFilter::default() }, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/locations/code/{code}", tag = "warehouse", params(("code" = String, Path)),
    responses((status = 200, body = LocationView, description = "Matched case-insensitively"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn location_by_code(state: web::Data<AppState>, code: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let location = state.commerce.locations.get_by_code(&code).await.map_err(|e| repo_error("location", e))?;
    Ok(ok_tagged::<LocationView, _>(location))
}

#[utoipa::path(get, path = "/api/v1/warehouse/locations/type/{type}", tag = "warehouse",
    params(("type" = LocationTypeName, Path, example = "Warehouse"), PageQuery),
    responses((status = 200, body = [LocationView]), (status = 400, description = "VALIDATION_ERROR: unknown type")),
    security(("bearer" = [])))]
pub async fn locations_by_type(
    state: web::Data<AppState>,
    kind: web::Path<String>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let kind = LocationType::parse(&kind).map_err(|e| warehouse_error(&e))?;
    locations_page(&state, LocationFilter { location_type: Some(kind), ..LocationFilter::default() }, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/locations/country/{country}", tag = "warehouse",
    params(("country" = String, Path, format = "country-code", example = "UA",
        description = "An ISO 3166-1 alpha-2 code present in the reference data"), PageQuery),
    responses((status = 200, body = [LocationView]), (status = 404, description = "NOT_FOUND: unknown country")),
    security(("bearer" = [])))]
pub async fn locations_by_country(
    state: web::Data<AppState>,
    country: web::Path<String>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    // A code in the path that names no country is a missing resource, as for the reference data.
    let country = state
        .commerce
        .warehouse
        .locations
        .country(&country)
        .await
        .map_err(|_| ApiError::not_found("no such country"))?;
    locations_page(&state, LocationFilter { country: Some(country), ..LocationFilter::default() }, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/locations/{id}/inventory", tag = "warehouse",
    params(("id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [InventoryView], description = "The records kept at the location"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn location_inventory(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let location = load_location(&state, id.into_inner()).await?;
    let filter = InventoryFilter { location_id: Some(location.id), ..InventoryFilter::default() };
    super::inventory::inventory_page(&state, filter, page.request()?).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/locations/{id}/stock-movements", tag = "warehouse",
    params(("id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [MovementView], description = "Newest first"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn location_movements(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let location = load_location(&state, id.into_inner()).await?;
    let filter = MovementFilter { location_id: Some(location.id), ..MovementFilter::default() };
    let movements =
        state.commerce.movements.list(&filter, page.request()?).await.map_err(|e| repo_error("stock movement", e))?;
    Ok(list(movements.map(MovementView::from)))
}

#[utoipa::path(get, path = "/api/v1/warehouse/locations/{id}/utilization", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 200, body = UtilizationView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn location_utilization(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let location = load_location(&state, id.into_inner()).await?;
    let on_hand =
        state.commerce.locations.quantity_on_hand(location.id).await.map_err(|e| repo_error("location", e))?;
    Ok(ok(UtilizationView::from(location.utilization(on_hand))))
}
