//! Suppliers: create, read, change, delete, list (`suppliers:*`; docs/purchasing-and-transfers.md).

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use uuid::Uuid;
use warehouse_domain::purchasing::{NewSupplier, SupplierChanges, SupplierFilter};

use super::purchasing_requests::{SupplierBody, SupplierChangesBody, SupplierListQuery};
use super::purchasing_responses::SupplierView;
use crate::app::AppState;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{list, no_content, ApiError, Json, PageQuery};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/suppliers").route(web::get().to(list_suppliers)).route(web::post().to(create_supplier)),
    )
    .service(
        web::resource("/suppliers/{id}")
            .route(web::get().to(get_supplier))
            .route(web::put().to(update_supplier))
            .route(web::delete().to(delete_supplier)),
    );
}

/// A phone in E.164 form (the one phone rule, `crate::phone`); 400 `INVALID_PHONE` otherwise.
fn phone(raw: Option<String>) -> Result<Option<String>, ApiError> {
    match raw.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => crate::phone::e164(text).map(Some).ok_or_else(|| {
            ApiError::new(StatusCode::BAD_REQUEST, "INVALID_PHONE", "phone must be a valid number in +E.164 form")
                .on_field("phone")
        }),
    }
}

async fn currency(state: &AppState, code: Option<String>) -> Result<Option<shared_kernel::CurrencyCode>, ApiError> {
    match code.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        None => Ok(None),
        Some(code) => state.commerce.warehouse.active_currency(code).await.map(Some),
    }
}

#[utoipa::path(post, path = "/api/v1/warehouse/suppliers", tag = "purchasing", request_body = SupplierBody,
    responses((status = 201, body = SupplierView),
              (status = 400, description = "VALIDATION_ERROR naming the field, INVALID_EMAIL, INVALID_PHONE")),
    security(("bearer" = [])))]
pub async fn create_supplier(
    state: web::Data<AppState>,
    Json(body): Json<SupplierBody>,
) -> Result<HttpResponse, ApiError> {
    let input = NewSupplier {
        name: body.name,
        email: body.email,
        phone: phone(body.phone)?,
        currency: currency(&state, body.currency).await?,
        lead_time_days: body.lead_time_days,
        notes: body.notes,
        is_active: body.is_active,
    };
    let supplier = state.commerce.warehouse.suppliers.create(input).await?;
    Ok(created_tagged::<SupplierView, _>(supplier))
}

#[utoipa::path(get, path = "/api/v1/warehouse/suppliers", tag = "purchasing", params(SupplierListQuery),
    responses((status = 200, body = [SupplierView], description = "Newest first, paginated"),
              (status = 400, description = "VALIDATION_ERROR")),
    security(("bearer" = [])))]
pub async fn list_suppliers(
    state: web::Data<AppState>,
    query: web::Query<SupplierListQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = PageQuery { page: query.page, page_size: query.page_size }.request()?;
    let query = query.into_inner();
    let filter = SupplierFilter { search: query.search, is_active: query.is_active };
    let found = state.commerce.warehouse.documents.suppliers.list(&filter, page).await?;
    Ok(list(found.map(SupplierView::from)))
}

#[utoipa::path(get, path = "/api/v1/warehouse/suppliers/{id}", tag = "purchasing", params(("id" = Uuid, Path)),
    responses((status = 200, body = SupplierView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_supplier(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<SupplierView, _>(state.commerce.warehouse.suppliers.get(id.into_inner()).await?))
}

#[utoipa::path(put, path = "/api/v1/warehouse/suppliers/{id}", tag = "purchasing", params(("id" = Uuid, Path)),
    request_body = SupplierChangesBody,
    responses((status = 200, body = SupplierView, description = "Absent fields stay; null clears an optional one"),
              (status = 400, description = "VALIDATION_ERROR, INVALID_EMAIL, INVALID_PHONE"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn update_supplier(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<SupplierChangesBody>,
) -> Result<HttpResponse, ApiError> {
    let currency = match body.currency {
        None => None,
        Some(code) => Some(currency(&state, code).await?),
    };
    let changes = SupplierChanges {
        name: body.name,
        email: body.email,
        phone: body.phone.map(phone).transpose()?,
        currency,
        lead_time_days: body.lead_time_days,
        notes: body.notes,
        is_active: body.is_active,
    };
    let supplier = state.commerce.warehouse.suppliers.update(id.into_inner(), changes).await?;
    Ok(ok_tagged::<SupplierView, _>(supplier))
}

#[utoipa::path(delete, path = "/api/v1/warehouse/suppliers/{id}", tag = "purchasing", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted"), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "SUPPLIER_HAS_OPEN_ORDERS: a purchase order of it is draft, ordered or partially received")),
    security(("bearer" = [])))]
pub async fn delete_supplier(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.commerce.warehouse.suppliers.delete(id.into_inner()).await?;
    Ok(no_content())
}
