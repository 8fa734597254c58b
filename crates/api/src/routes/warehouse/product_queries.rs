//! Product look-ups and lists, and a product's stock: its records, availability and movements.

use actix_web::{web, HttpResponse};
use uuid::Uuid;
use warehouse_domain::{InventoryFilter, MovementFilter, ProductFilter, ProductSort, ProductStatus};

use super::products::load_product;
use super::requests::{ProductListQuery, ProductStatusName};
use super::responses::{AvailabilityView, InventoryView, MovementView, ProductView};
use super::{repo_error, warehouse_error};
use crate::app::AppState;
use crate::http::conditional::ok_tagged;
use crate::http::{list, ok, ApiError, PageQuery};
use crate::routes::query_params::present;

async fn products_page(state: &AppState, filter: ProductFilter, page: &PageQuery) -> Result<HttpResponse, ApiError> {
    let products =
        state.commerce.products.list(&filter, page.request()?).await.map_err(|e| repo_error("product", e))?;
    Ok(list(products.map(ProductView::from)))
}

/// `GET /products`' filters and sort as the list and its export read them (blank is absent).
pub(crate) fn product_filter(q: ProductListQuery) -> Result<ProductFilter, ApiError> {
    let status = present(&q.status).map(ProductStatus::parse).transpose().map_err(|e| warehouse_error(&e))?;
    let sort = present(&q.sort).map(ProductSort::parse).transpose().map_err(|e| warehouse_error(&e))?;
    Ok(ProductFilter { status, category: q.category, brand: q.brand, search: q.search, sort: sort.unwrap_or_default() })
}

#[utoipa::path(get, path = "/api/v1/warehouse/products", tag = "warehouse", params(PageQuery, ProductListQuery),
    responses((status = 200, body = [ProductView], description = "Paginated; newest first unless `sort` says otherwise"),
              (status = 400, description = "VALIDATION_ERROR (status, sort, page)")),
    security(("bearer" = [])))]
pub async fn list_products(
    state: web::Data<AppState>,
    page: web::Query<PageQuery>,
    query: web::Query<ProductListQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = product_filter(query.into_inner())?;
    products_page(&state, filter, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/products/categories", tag = "warehouse",
    responses((status = 200, body = [String], description = "Distinct categories of live products, sorted")),
    security(("bearer" = [])))]
pub async fn categories(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    Ok(ok(state.commerce.products.categories().await.map_err(|e| repo_error("product", e))?))
}

#[utoipa::path(get, path = "/api/v1/warehouse/products/brands", tag = "warehouse",
    responses((status = 200, body = [String], description = "Distinct brands of live products, sorted")),
    security(("bearer" = [])))]
pub async fn brands(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    Ok(ok(state.commerce.products.brands().await.map_err(|e| repo_error("product", e))?))
}

#[utoipa::path(get, path = "/api/v1/warehouse/products/sku/{sku}", tag = "warehouse", params(("sku" = String, Path)),
    responses((status = 200, body = ProductView, description = "Matched case-insensitively"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn product_by_sku(state: web::Data<AppState>, sku: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let product = state.commerce.products.get_by_sku(&sku).await.map_err(|e| repo_error("product", e))?;
    Ok(ok_tagged::<ProductView, _>(product))
}

#[utoipa::path(get, path = "/api/v1/warehouse/products/category/{category}", tag = "warehouse",
    params(("category" = String, Path), PageQuery),
    responses((status = 200, body = [ProductView], description = "Case-insensitive match, paginated")),
    security(("bearer" = [])))]
pub async fn products_by_category(
    state: web::Data<AppState>,
    category: web::Path<String>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = ProductFilter { category: Some(category.into_inner()), ..ProductFilter::default() };
    products_page(&state, filter, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/products/brand/{brand}", tag = "warehouse",
    params(("brand" = String, Path), PageQuery),
    responses((status = 200, body = [ProductView], description = "Case-insensitive match, paginated")),
    security(("bearer" = [])))]
pub async fn products_by_brand(
    state: web::Data<AppState>,
    brand: web::Path<String>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = ProductFilter { brand: Some(brand.into_inner()), ..ProductFilter::default() };
    products_page(&state, filter, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/products/status/{status}", tag = "warehouse",
    params(("status" = inline(ProductStatusName), Path, example = "active"), PageQuery),
    responses((status = 200, body = [ProductView]), (status = 400, description = "VALIDATION_ERROR: unknown status")),
    security(("bearer" = [])))]
pub async fn products_by_status(
    state: web::Data<AppState>,
    status: web::Path<String>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let status = ProductStatus::parse(&status).map_err(|e| warehouse_error(&e))?;
    products_page(&state, ProductFilter { status: Some(status), ..ProductFilter::default() }, &page).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/products/{id}/inventory", tag = "warehouse",
    params(("id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [InventoryView], description = "The product's records at every location"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn product_inventory(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let product = load_product(&state, id.into_inner()).await?;
    let filter = InventoryFilter { product_id: Some(product.id), ..InventoryFilter::default() };
    super::inventory::inventory_page(&state, filter, page.request()?).await
}

#[utoipa::path(get, path = "/api/v1/warehouse/products/{id}/availability", tag = "warehouse", params(("id" = Uuid, Path)),
    responses((status = 200, body = AvailabilityView, description = "Quantities summed over the product's records"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn product_availability(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let product = load_product(&state, id.into_inner()).await?;
    let availability =
        state.commerce.inventory.availability(product.id).await.map_err(|e| repo_error("inventory", e))?;
    Ok(ok(AvailabilityView::from(availability)))
}

#[utoipa::path(get, path = "/api/v1/warehouse/products/{id}/stock-movements", tag = "warehouse",
    params(("id" = Uuid, Path), PageQuery),
    responses((status = 200, body = [MovementView], description = "Newest first"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn product_movements(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let product = load_product(&state, id.into_inner()).await?;
    let filter = MovementFilter { product_id: Some(product.id), ..MovementFilter::default() };
    let movements =
        state.commerce.movements.list(&filter, page.request()?).await.map_err(|e| repo_error("stock movement", e))?;
    Ok(list(movements.map(MovementView::from)))
}
