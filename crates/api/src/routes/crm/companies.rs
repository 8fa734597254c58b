//! Companies: the organisations a `company_id` names (docs/customer-management.md).

use actix_web::{web, HttpResponse};
use crm_domain::{CompanyChanges, CompanyFilter, NewCompany};
use uuid::Uuid;

use super::requests::{CompanyListQuery, CreateCompanyBody, UpdateCompanyBody};
use super::responses::CompanyView;
use crate::app::AppState;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{list, no_content, ApiError, Json, PageQuery};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/companies").route(web::post().to(create_company)).route(web::get().to(list_companies)))
        .service(
            web::resource("/companies/{id}")
                .route(web::get().to(get_company))
                .route(web::put().to(update_company))
                .route(web::delete().to(delete_company)),
        );
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/companies", tag = "customer management",
    request_body = CreateCompanyBody,
    responses((status = 201, body = CompanyView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 403, description = "Lacks companies:create")),
    security(("bearer" = [])))]
pub async fn create_company(
    state: web::Data<AppState>,
    Json(body): Json<CreateCompanyBody>,
) -> Result<HttpResponse, ApiError> {
    let input = NewCompany::from(body);
    let saved = state.crm.company_cases.create(input).await?;
    Ok(created_tagged::<CompanyView, _>(saved))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/companies", tag = "customer management",
    params(PageQuery, CompanyListQuery),
    responses((status = 200, body = [CompanyView]), (status = 403, description = "Lacks companies:read")),
    security(("bearer" = [])))]
pub async fn list_companies(
    state: web::Data<AppState>,
    page: web::Query<PageQuery>,
    query: web::Query<CompanyListQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = CompanyFilter { search: query.into_inner().search };
    let companies = state.crm.companies.list(&filter, page.request()?).await.map_err(ApiError::from)?;
    Ok(list(companies.map(CompanyView::from)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/companies/{id}", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = CompanyView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_company(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<CompanyView, _>(state.crm.company_cases.get(id.into_inner()).await?))
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/companies/{id}", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = UpdateCompanyBody,
    responses((status = 200, body = CompanyView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn update_company(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<UpdateCompanyBody>,
) -> Result<HttpResponse, ApiError> {
    let changes = CompanyChanges { name: body.name, website: body.website, industry: body.industry };
    let saved = state.crm.company_cases.update(id.into_inner(), changes).await?;
    Ok(ok_tagged::<CompanyView, _>(saved))
}

#[utoipa::path(delete, path = "/api/v1/customer-mgmt/companies/{id}", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted"), (status = 404, description = "NOT_FOUND"),
              (status = 403, description = "Lacks companies:delete")),
    security(("bearer" = [])))]
pub async fn delete_company(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.crm.company_cases.delete(id.into_inner()).await?;
    Ok(no_content())
}
