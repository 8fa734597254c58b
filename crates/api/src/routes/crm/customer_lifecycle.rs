//! Customer lifecycle: status moves, tier upgrades, tags and sales-rep assignment.
//!
//! A status or tier change is saved conditionally on the state it started from. If someone else
//! changed it meanwhile, the move is re-decided on the fresh state (`http::retry`), so the caller gets
//! the precise answer (`INVALID_STATUS_TRANSITION` …) rather than a generic conflict.

use actix_web::{web, HttpResponse};
use crm_domain::{Customer, CustomerError, CustomerStatus, RepoError, StatusTransition};
use time::OffsetDateTime;
use uuid::Uuid;

use super::change_views::{CustomerAssigned, CustomerChurned, CustomerStatusChanged, CustomerStatusSet};
use super::customers::{customer_edit, customer_error, customer_write_error};
use super::requests::{AssignBody, ChurnBody, StatusBody, TagsBody, TierBody};
use super::responses::CustomerView;
use super::wire::{ensure_active_user, existing_customer, now, required};
use crate::app::AppState;
use crate::http::conditional::{ok_tagged, Tagged};
use crate::http::retry::{until_settled, Attempt};
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

/// Loads, moves and saves; on a concurrent change, re-decides on the fresh state (`http::retry`).
async fn transition<F>(state: &AppState, id: Uuid, step: F) -> Result<Customer, ApiError>
where
    F: Fn(&Customer, OffsetDateTime) -> Result<StatusTransition, CustomerError>,
{
    let step = &step;
    until_settled(|| async move {
        let customer = existing_customer(state, id).await?;
        let moved = step(&customer, now()).map_err(customer_error)?;
        match state.crm.customers.save_transition(&moved).await {
            Ok(saved) => {
                state.outbox.notify();
                Ok(Attempt::Done(saved))
            }
            Err(RepoError::Stale) => Ok(Attempt::Stale),
            Err(error) => Err(customer_write_error(error)),
        }
    })
    .await
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/customers/{id}/qualify", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = CustomerStatusChanged, description = "Now a prospect"),
              (status = 404, description = "CUSTOMER_NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn qualify(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let saved = transition(&state, id.into_inner(), |c, at| c.qualify(at)).await?;
    Ok(ok(CustomerStatusChanged::from(&saved)).tagged(&saved))
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/customers/{id}/convert", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = CustomerStatusChanged, description = "Now a customer"),
              (status = 404, description = "CUSTOMER_NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn convert(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let saved = transition(&state, id.into_inner(), |c, at| c.convert(at)).await?;
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
    let saved = transition(&state, id.into_inner(), |c, at| c.churn(reason.clone(), at)).await?;
    Ok(ok(CustomerChurned::from(&saved)).tagged(&saved))
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/customers/{id}/reactivate", tag = "customer management",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = CustomerView, description = "Back to prospect, churned_at cleared"),
              (status = 404, description = "CUSTOMER_NOT_FOUND"), (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn reactivate(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let saved = transition(&state, id.into_inner(), |c, at| c.reactivate(at)).await?;
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
    let saved = transition(&state, id.into_inner(), |c, at| c.transition_to(target, body.reason.clone(), at)).await?;
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
    let customer = existing_customer(&state, id.into_inner()).await?;
    if let Some(rep) = rep {
        ensure_active_user(&state, rep, "assigned_to").await?;
    }
    let saved = customer_edit(&state, customer, |read| Ok(read.assign(rep, now()))).await?;
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
    let id = id.into_inner();
    let (state, tier) = (&state, body.tier);
    let saved = until_settled(|| async move {
        let customer = existing_customer(state, id).await?;
        let change = customer.change_tier(tier, now()).map_err(customer_error)?;
        Attempt::of(state.crm.customers.save_tier_change(&change).await, customer_write_error)
    })
    .await?;
    state.outbox.notify();
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
    let customer = existing_customer(&state, id.into_inner()).await?;
    let saved = customer_edit(&state, customer, |read| read.set_tags(body.tags.clone(), now())).await?;
    Ok(ok_tagged::<CustomerView, _>(saved))
}
