//! Locations: create, read, replace, delete, activate and deactivate (`locations:*`).

use actix_web::{web, HttpResponse};
use postgres_toolkit::reference::queries::find_country;
use uuid::Uuid;
use warehouse_domain::{Address, CountryCode, Location, LocationInput, LocationType, WarehouseError};

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

/// A country code that exists in the reference data; anything else is 400 on `field`.
pub(crate) async fn known_country(state: &AppState, field: &'static str, code: &str) -> Result<CountryCode, ApiError> {
    let country = CountryCode::parse(code).map_err(|_| {
        warehouse_error(&WarehouseError::Validation { field, message: "must be an ISO 3166-1 alpha-2 code" })
    })?;
    match find_country(&state.pool, country.as_str()).await? {
        Some(_) => Ok(country),
        None => Err(ApiError::field(field, "is not a known country")),
    }
}

async fn location_input(state: &AppState, body: LocationBody) -> Result<LocationInput, ApiError> {
    let location_type = LocationType::parse(&body.location_type).map_err(|e| warehouse_error(&e))?;
    let country = known_country(state, "country", &body.country).await?;
    let address = body.address.unwrap_or(super::requests::AddressBody {
        street: None,
        city: None,
        state: None,
        postal_code: None,
        country: None,
    });
    let address_country = match address.country.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(code) => Some(
            CountryCode::parse(code)
                .map_err(|_| ApiError::field("address.country", "must be an ISO 3166-1 alpha-2 code"))?,
        ),
        None => None,
    };
    Ok(LocationInput {
        code: body.code,
        name: body.name,
        location_type,
        address: Address {
            street: address.street,
            city: address.city,
            state: address.state,
            postal_code: address.postal_code,
            country: address_country,
        },
        country,
        capacity: body.capacity,
    })
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
    let input = location_input(&state, body).await?;
    let location = state.commerce.warehouse.locations.create(input).await?;
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
    let input = location_input(&state, body).await?;
    let updated = state.commerce.warehouse.locations.update(id.into_inner(), input).await?;
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
