//! Locations: create, read, replace, delete, activate and deactivate (`locations:*`).

use actix_web::{web, HttpResponse};
use uuid::Uuid;
use warehouse_domain::application::LocationRequest;
use warehouse_domain::{Address, CountryCode, Location, LocationInput, LocationType};

use super::location_queries as q;
use super::requests::LocationBody;
use super::responses::LocationView;
use super::warehouse_error;
use crate::app::AppState;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{no_content, ApiError, Json};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/locations").route(web::get().to(q::list_locations)).route(web::post().to(create_location)),
    )
    .service(web::resource("/locations/active").route(web::get().to(q::active_locations)))
    .service(web::resource("/locations/code/{code}").route(web::get().to(q::location_by_code)))
    .service(web::resource("/locations/type/{type}").route(web::get().to(q::locations_by_type)))
    .service(web::resource("/locations/country/{country}").route(web::get().to(q::locations_by_country)))
    .service(
        web::resource("/locations/{id}")
            .route(web::get().to(get_location))
            .route(web::put().to(update_location))
            .route(web::delete().to(delete_location)),
    )
    .service(web::resource("/locations/{id}/activate").route(web::post().to(activate_location)))
    .service(web::resource("/locations/{id}/deactivate").route(web::post().to(deactivate_location)))
    .service(web::resource("/locations/{id}/inventory").route(web::get().to(q::location_inventory)))
    .service(web::resource("/locations/{id}/stock-movements").route(web::get().to(q::location_movements)))
    .service(web::resource("/locations/{id}/utilization").route(web::get().to(q::location_utilization)));
}

/// The body as the use case takes it: the type and the country's shape parsed here; whether the
/// country exists, and the address's country, are the use case's (in that order).
fn location_request(body: LocationBody) -> Result<LocationRequest, ApiError> {
    let location_type = LocationType::parse(&body.location_type).map_err(|e| warehouse_error(&e))?;
    let country = CountryCode::parse(&body.country).map_err(|e| warehouse_error(&e))?;
    let address = body.address.unwrap_or(super::requests::AddressBody {
        street: None,
        city: None,
        state: None,
        postal_code: None,
        country: None,
    });
    let input = LocationInput {
        code: body.code,
        name: body.name,
        location_type,
        address: Address {
            street: address.street,
            city: address.city,
            state: address.state,
            postal_code: address.postal_code,
            country: None,
        },
        country,
        capacity: body.capacity,
    };
    Ok(LocationRequest { input, address_country: address.country })
}

pub(crate) async fn load_location(state: &AppState, id: Uuid) -> Result<Location, ApiError> {
    Ok(state.commerce.warehouse.locations.get(id).await?)
}

#[utoipa::path(post, path = "/api/v1/warehouse/locations", tag = "warehouse", request_body = LocationBody,
    responses((status = 201, body = LocationView), (status = 400, description = "VALIDATION_ERROR naming the field"),
              (status = 409, description = "ALREADY_EXISTS: the code is taken (case-insensitively)")),
    security(("bearer" = [])))]
pub async fn create_location(
    state: web::Data<AppState>,
    Json(body): Json<LocationBody>,
) -> Result<HttpResponse, ApiError> {
    let request = location_request(body)?;
    let location = state.commerce.warehouse.locations.create(request).await?;
    Ok(created_tagged::<LocationView, _>(location))
}

#[utoipa::path(get, path = "/api/v1/warehouse/locations/{id}", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 200, body = LocationView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_location(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<LocationView, _>(load_location(&state, id.into_inner()).await?))
}

#[utoipa::path(put, path = "/api/v1/warehouse/locations/{id}", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = LocationBody,
    responses((status = 200, body = LocationView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 404, description = "NOT_FOUND"), (status = 409, description = "ALREADY_EXISTS (code)")),
    security(("bearer" = [])))]
pub async fn update_location(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<LocationBody>,
) -> Result<HttpResponse, ApiError> {
    let request = location_request(body)?;
    let updated = state.commerce.warehouse.locations.update(id.into_inner(), request).await?;
    Ok(ok_tagged::<LocationView, _>(updated))
}

#[utoipa::path(delete, path = "/api/v1/warehouse/locations/{id}", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted; the code is free again"), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "LOCATION_HAS_STOCK: a record there has stock on hand")),
    security(("bearer" = [])))]
pub async fn delete_location(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.commerce.warehouse.locations.delete(id.into_inner()).await?;
    Ok(no_content())
}

#[utoipa::path(post, path = "/api/v1/warehouse/locations/{id}/activate", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 200, body = LocationView), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "INVALID_STATUS_TRANSITION: already active")),
    security(("bearer" = [])))]
pub async fn activate_location(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<LocationView, _>(state.commerce.warehouse.locations.activate(id.into_inner()).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/locations/{id}/deactivate", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 200, body = LocationView, description = "Inactive locations are skipped when reserving for orders"),
              (status = 404, description = "NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION: already inactive")),
    security(("bearer" = [])))]
pub async fn deactivate_location(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<LocationView, _>(state.commerce.warehouse.locations.deactivate(id.into_inner()).await?))
}
