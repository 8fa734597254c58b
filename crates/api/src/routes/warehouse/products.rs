//! Products: create, read, replace, delete, discontinue and activate (`products:*`).

use actix_web::{web, HttpResponse};
use shared_kernel::CurrencyCode;
use uuid::Uuid;
use warehouse_domain::application::inactive_currency;
use warehouse_domain::{Product, ProductInput};

use super::product_queries as q;
use super::requests::ProductBody;
use super::responses::ProductView;
use super::warehouse_error;
use crate::app::AppState;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{no_content, ApiError, Json};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource("/products").route(web::get().to(q::list_products)).route(web::post().to(create_product)),
    )
    .service(web::resource("/products/categories").route(web::get().to(q::categories)))
    .service(web::resource("/products/brands").route(web::get().to(q::brands)))
    .service(web::resource("/products/sku/{sku}").route(web::get().to(q::product_by_sku)))
    .service(web::resource("/products/category/{category}").route(web::get().to(q::products_by_category)))
    .service(web::resource("/products/brand/{brand}").route(web::get().to(q::products_by_brand)))
    .service(web::resource("/products/status/{status}").route(web::get().to(q::products_by_status)))
    .service(
        web::resource("/products/{id}")
            .route(web::get().to(get_product))
            .route(web::put().to(update_product))
            .route(web::delete().to(delete_product)),
    )
    .service(web::resource("/products/{id}/inventory").route(web::get().to(q::product_inventory)))
    .service(web::resource("/products/{id}/availability").route(web::get().to(q::product_availability)))
    .service(web::resource("/products/{id}/stock-movements").route(web::get().to(q::product_movements)))
    .service(web::resource("/products/{id}/discontinue").route(web::post().to(discontinue_product)))
    .service(web::resource("/products/{id}/activate").route(web::post().to(activate_product)));
}

/// The body as the use case takes it; a currency that is not even a code is refused as an inactive
/// one (whether it is active is the use case's question).
pub(crate) fn product_input(body: ProductBody) -> Result<ProductInput, ApiError> {
    let currency = match body.currency.as_deref().map(str::trim).filter(|c| !c.is_empty()) {
        Some(code) => Some(CurrencyCode::parse(code).map_err(|_| warehouse_error(&inactive_currency()))?),
        None => None,
    };
    Ok(ProductInput {
        sku: body.sku,
        name: body.name,
        description: body.description,
        category: body.category,
        brand: body.brand,
        weight_grams: body.weight_grams,
        length_mm: body.length_mm,
        width_mm: body.width_mm,
        height_mm: body.height_mm,
        price: body.price,
        currency,
        supplier_id: body.supplier_id,
    })
}

pub(crate) async fn load_product(state: &AppState, id: Uuid) -> Result<Product, ApiError> {
    Ok(state.commerce.warehouse.products.get(id).await?)
}

#[utoipa::path(post, path = "/api/v1/warehouse/products", tag = "warehouse", request_body = ProductBody,
    responses((status = 201, body = ProductView), (status = 400, description = "VALIDATION_ERROR naming the field"),
              (status = 404, description = "NOT_FOUND: the supplier is missing or deleted"),
              (status = 409, description = "ALREADY_EXISTS: the SKU is taken (case-insensitively)")),
    security(("bearer" = [])))]
pub async fn create_product(
    state: web::Data<AppState>,
    Json(body): Json<ProductBody>,
) -> Result<HttpResponse, ApiError> {
    let input = product_input(body)?;
    let product = state.commerce.warehouse.products.create(input).await?;
    Ok(created_tagged::<ProductView, _>(product))
}

#[utoipa::path(get, path = "/api/v1/warehouse/products/{id}", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 200, body = ProductView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_product(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<ProductView, _>(load_product(&state, id.into_inner()).await?))
}

#[utoipa::path(put, path = "/api/v1/warehouse/products/{id}", tag = "warehouse", params(("id" = Uuid, Path)),
    request_body = ProductBody,
    responses((status = 200, body = ProductView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 404, description = "NOT_FOUND: the product, or a newly set supplier missing or deleted"), (status = 409, description = "ALREADY_EXISTS (sku)")),
    security(("bearer" = [])))]
pub async fn update_product(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<ProductBody>,
) -> Result<HttpResponse, ApiError> {
    let input = product_input(body)?;
    let updated = state.commerce.warehouse.products.update(id.into_inner(), input).await?;
    Ok(ok_tagged::<ProductView, _>(updated))
}

#[utoipa::path(delete, path = "/api/v1/warehouse/products/{id}", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted; the SKU is free again"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn delete_product(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.commerce.warehouse.products.delete(id.into_inner()).await?;
    Ok(no_content())
}

#[utoipa::path(post, path = "/api/v1/warehouse/products/{id}/discontinue", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 200, body = ProductView), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "INVALID_STATUS_TRANSITION: already discontinued")),
    security(("bearer" = [])))]
pub async fn discontinue_product(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<ProductView, _>(state.commerce.warehouse.products.discontinue(id.into_inner()).await?))
}

#[utoipa::path(post, path = "/api/v1/warehouse/products/{id}/activate", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 200, body = ProductView), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "INVALID_STATUS_TRANSITION: already active")),
    security(("bearer" = [])))]
pub async fn activate_product(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<ProductView, _>(state.commerce.warehouse.products.activate(id.into_inner()).await?))
}
