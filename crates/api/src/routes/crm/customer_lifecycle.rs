//! Customer lifecycle: status moves, tier upgrades, tags and sales-rep assignment.
//!
//! The moves are `crm_domain::application::CustomerService`'s (saved conditionally, decided again
//! after a lost race); these handlers parse, call and map.

use actix_web::{web, HttpResponse};
use crm_domain::CustomerStatus;
use uuid::Uuid;

use super::change_views::{CustomerAssigned, CustomerChurned, CustomerStatusChanged, CustomerStatusSet};
use super::requests::{AssignBody, ChurnBody, StatusBody, TagsBody, TierBody};
use super::responses::CustomerView;
use super::wire::required;
use crate::app::AppState;
use crate::http::conditional::{ok_tagged, Tagged};
use crate::http::{ok, ApiError, Json, OptionalJson};

pub fn configure(cfg: &mut web::ServiceConfig) {
    let resource = |tail: &str| web::resource(format!("/customers/{{id}}/{tail}"));
    cfg.service(resource("qualify").route(web::post().to(qualify)))
        .service(resource("convert").route(web::post().to(convert)))
        .service(resource("churn").route(web::post().to(churn)))
        .service(resource("reactivate").route(web::post().to(reactivate)))
        .service(resource("status").route(web::patch().to(set_status)))
        .service(resource("assign").route(web::post().to(assign)).route(web::put().to(assign_put)))
        .service(resource("tier").route(web::put().to(change_tier)))
        .service(resource("tags").route(web::put().to(set_tags)));
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/customers/{id}/qualify", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = CustomerStatusChanged, description = "Now a prospect"),
              (status = 404, description = "CUSTOMER_NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn qualify(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let saved = state.crm.customer_cases.qualify(id.into_inner()).await?;
    Ok(ok(CustomerStatusChanged::from(&saved)).tagged(&saved))
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/customers/{id}/convert", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = CustomerStatusChanged, description = "Now a customer"),
              (status = 404, description = "CUSTOMER_NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn convert(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let saved = state.crm.customer_cases.convert(id.into_inner()).await?;
    Ok(ok(CustomerStatusChanged::from(&saved)).tagged(&saved))
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/customers/{id}/churn", tag = "customer management",
    params(("id" = Uuid, Path)), request_body(content = Option<ChurnBody>, description = "Optional reason"),
    responses((status = 200, body = CustomerChurned, description = "Now churned"),
              (status = 404, description = "CUSTOMER_NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn churn(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    body: OptionalJson<ChurnBody>,
) -> Result<HttpResponse, ApiError> {
    let reason = body.0.and_then(|b| b.reason);
    let saved = state.crm.customer_cases.churn(id.into_inner(), reason).await?;
    Ok(ok(CustomerChurned::from(&saved)).tagged(&saved))
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/customers/{id}/reactivate", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = CustomerView, description = "Back to prospect, churned_at cleared"),
              (status = 404, description = "CUSTOMER_NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn reactivate(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let saved = state.crm.customer_cases.reactivate(id.into_inner()).await?;
    Ok(ok_tagged::<CustomerView, _>(saved))
}

#[utoipa::path(patch, path = "/api/v1/customer-mgmt/customers/{id}/status", tag = "customer management", operation_id = "set_customer_status",
    params(("id" = Uuid, Path)), request_body = StatusBody,
    responses((status = 200, body = CustomerStatusSet),
              (status = 400, description = "VALIDATION_ERROR"), (status = 404, description = "CUSTOMER_NOT_FOUND"),
              (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn set_status(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<StatusBody>,
) -> Result<HttpResponse, ApiError> {
    let target = CustomerStatus::parse(&body.status).map_err(|e| ApiError::field("status", e.to_string()))?;
    let saved = state.crm.customer_cases.set_status(id.into_inner(), target, body.reason).await?;
    Ok(ok(CustomerStatusSet::from(&saved)).tagged(&saved))
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/customers/{id}/assign", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = AssignBody,
    responses((status = 200, body = CustomerAssigned, description = "Assigned (PUT is the same)"),
              (status = 404, description = "CUSTOMER_NOT_FOUND / USER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn assign(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<AssignBody>,
) -> Result<HttpResponse, ApiError> {
    let rep = body.assigned_to.ok_or_else(|| required("assigned_to"))?;
    let saved = state.crm.customer_cases.assign(id.into_inner(), rep).await?;
    Ok(ok(CustomerAssigned::from(&saved)).tagged(&saved))
}

/// `PUT` is accepted for `assign` too (the spec names both); documented so the
/// contract lists every method the route answers.
#[utoipa::path(put, path = "/api/v1/customer-mgmt/customers/{id}/assign", tag = "customer management",
    operation_id = "assign_put", params(("id" = Uuid, Path)), request_body = AssignBody,
    responses((status = 200, body = CustomerAssigned, description = "Assigned (same as POST)"),
              (status = 404, description = "CUSTOMER_NOT_FOUND / USER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn assign_put(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    body: Json<AssignBody>,
) -> Result<HttpResponse, ApiError> {
    assign(state, id, body).await
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/customers/{id}/tier", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = TierBody,
    responses((status = 200, body = CustomerView), (status = 404, description = "CUSTOMER_NOT_FOUND"),
              (status = 409, description = "INVALID_TIER_CHANGE (not an upgrade)")),
    security(("bearer" = [])))]
pub async fn change_tier(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<TierBody>,
) -> Result<HttpResponse, ApiError> {
    let saved = state.crm.customer_cases.change_tier(id.into_inner(), body.tier).await?;
    Ok(ok_tagged::<CustomerView, _>(saved))
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/customers/{id}/tags", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = TagsBody,
    responses((status = 200, body = CustomerView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 404, description = "CUSTOMER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn set_tags(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<TagsBody>,
) -> Result<HttpResponse, ApiError> {
    let saved = state.crm.customer_cases.set_tags(id.into_inner(), body.tags).await?;
    Ok(ok_tagged::<CustomerView, _>(saved))
}
