//! Deals: create, read, list, edit an open deal, delete, and the pipeline statistics.
//! Stage moves (`/stage`, `/win`, `/lose`) are in `deal_stages.rs`.

use actix_web::{web, HttpResponse};
use crm_domain::{DealFilter, DealStage, NewDeal};
use uuid::Uuid;

use super::change_views::{DealBasicInfoChanged, DealValueChanged, PipelineStats, WonStats};
use super::requests::{BasicInfoBody, CreateDealBody, DealListQuery, DealStageName, ValueBody};
use super::responses::DealView;
use crate::app::AppState;
use crate::http::conditional::{created_tagged, ok_tagged, Tagged};
use crate::http::{list, no_content, ok, ApiError, Json, PageQuery};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/deals").route(web::post().to(create_deal)).route(web::get().to(list_deals)))
        .service(web::resource("/deals/stats/pipeline").route(web::get().to(pipeline_stats)))
        .service(web::resource("/deals/stats/won").route(web::get().to(won_stats)))
        .service(web::resource("/deals/stage/{stage}").route(web::get().to(deals_in_stage)))
        .service(web::resource("/deals/{id}").route(web::get().to(get_deal)).route(web::delete().to(delete_deal)))
        .service(web::resource("/deals/{id}/basic-info").route(web::put().to(update_basic_info)))
        .service(web::resource("/deals/{id}/value").route(web::put().to(update_value)));
}

fn parse_id(field: &str, raw: &Option<String>) -> Result<Option<Uuid>, ApiError> {
    match raw.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(text) => shared_kernel::id::parse_id(text).map(Some).ok_or_else(|| ApiError::invalid_uuid(field)),
        None => Ok(None),
    }
}

fn parse_stage(raw: &str) -> Result<DealStage, ApiError> {
    DealStage::parse(raw).map_err(|e| ApiError::field("stage", e.to_string()))
}

/// `GET /deals`' filters as the list and its export read them (blank is absent).
pub(crate) fn deal_filter(query: &DealListQuery) -> Result<DealFilter, ApiError> {
    let stage = match query.stage.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(raw) => Some(parse_stage(raw)?),
        None => None,
    };
    Ok(DealFilter {
        stage,
        customer_id: parse_id("customer_id", &query.customer_id)?,
        assigned_to: parse_id("assigned_to", &query.assigned_to)?,
    })
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/deals", tag = "customer management", request_body = CreateDealBody,
    responses((status = 201, body = DealView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 404, description = "CUSTOMER_NOT_FOUND / USER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn create_deal(
    state: web::Data<AppState>,
    Json(body): Json<CreateDealBody>,
) -> Result<HttpResponse, ApiError> {
    let input = NewDeal {
        customer_id: body.customer_id,
        assigned_to: body.assigned_to,
        name: body.name,
        value: body.value,
        currency: body.currency,
        source: body.source,
        expected_close_date: body.expected_close_date,
        tags: body.tags,
    };
    let saved = state.crm.deal_cases.create(input).await?;
    Ok(created_tagged::<DealView, _>(saved))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/deals", tag = "customer management", params(PageQuery, DealListQuery),
    responses((status = 200, body = [DealView]), (status = 400, description = "VALIDATION_ERROR / INVALID_UUID")),
    security(("bearer" = [])))]
pub async fn list_deals(
    state: web::Data<AppState>,
    page: web::Query<PageQuery>,
    query: web::Query<DealListQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = page.request()?;
    let filter = deal_filter(&query)?;
    let deals = state.crm.deals.list(&filter, page).await.map_err(ApiError::from)?;
    Ok(list(deals.map(DealView::from)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/deals/stage/{stage}", tag = "customer management",
    params(("stage" = inline(DealStageName), Path, description = "A deal stage, any case"), PageQuery),
    responses((status = 200, body = [DealView]), (status = 400, description = "VALIDATION_ERROR (unknown stage)")),
    security(("bearer" = [])))]
pub async fn deals_in_stage(
    state: web::Data<AppState>,
    stage: web::Path<String>,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = DealFilter { stage: Some(parse_stage(&stage)?), ..DealFilter::default() };
    let deals = state.crm.deals.list(&filter, page.request()?).await.map_err(ApiError::from)?;
    Ok(list(deals.map(DealView::from)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/deals/stats/pipeline", tag = "customer management",
    responses((status = 200, body = PipelineStats, description = "Each of the six stages mapped to its count of deals")),
    security(("bearer" = [])))]
pub async fn pipeline_stats(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let counts = state.crm.deals.pipeline_counts().await.map_err(ApiError::from)?;
    let stats = counts.into_iter().map(|(stage, count)| (stage.as_str().to_owned(), count)).collect();
    Ok(ok(PipelineStats { stats }))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/deals/stats/won", tag = "customer management",
    responses((status = 200, body = WonStats, description = "Won deals; total_value in cents of REPORTING_CURRENCY")),
    security(("bearer" = [])))]
pub async fn won_stats(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let totals = state.crm.deals.won_totals().await.map_err(ApiError::from)?;
    let reporting = state.settings.reporting_currency;
    Ok(ok(WonStats {
        count: totals.count,
        total_value: totals.by_currency.get(&reporting).copied().unwrap_or(0),
        currency: reporting.as_str().to_owned(),
        by_currency: totals.by_currency.iter().map(|(c, v)| (c.as_str().to_owned(), *v)).collect(),
    }))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/deals/{id}", tag = "customer management", params(("id" = Uuid, Path)),
    responses((status = 200, body = DealView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_deal(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<DealView, _>(state.crm.deal_cases.get(id.into_inner()).await?))
}

#[utoipa::path(delete, path = "/api/v1/customer-mgmt/deals/{id}", tag = "customer management", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Soft-deleted"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn delete_deal(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    state.crm.deal_cases.delete(id.into_inner()).await?;
    Ok(no_content())
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/deals/{id}/basic-info", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = BasicInfoBody,
    responses((status = 200, body = DealBasicInfoChanged, description = "The id, the fields the request changed, updated_at"),
              (status = 400, description = "VALIDATION_ERROR"), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "DEAL_CLOSED")),
    security(("bearer" = [])))]
pub async fn update_basic_info(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<BasicInfoBody>,
) -> Result<HttpResponse, ApiError> {
    let (name_changed, date_changed) = (body.name.is_some(), body.expected_close_date.is_some());
    let saved = state.crm.deal_cases.update_basic_info(id.into_inner(), body.name, body.expected_close_date).await?;
    Ok(ok(DealBasicInfoChanged::of(&saved, name_changed, date_changed)).tagged(&saved))
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/deals/{id}/value", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = ValueBody,
    responses((status = 200, body = DealValueChanged),
              (status = 400, description = "VALIDATION_ERROR"), (status = 404, description = "NOT_FOUND"),
              (status = 409, description = "DEAL_CLOSED")),
    security(("bearer" = [])))]
pub async fn update_value(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<ValueBody>,
) -> Result<HttpResponse, ApiError> {
    let saved = state.crm.deal_cases.update_value(id.into_inner(), body.value, body.currency).await?;
    Ok(ok(DealValueChanged::from(&saved)).tagged(&saved))
}
