//! Edits of a logged interaction: content, outcome, end, follow-up and attendees, as
//! `crm_domain::application::InteractionService` decides them.

use actix_web::{web, HttpResponse};
use crm_domain::Interaction;
use uuid::Uuid;

use super::requests::{AttendeeBody, ContentBody, EndBody, FollowUpBody, OutcomeBody};
use super::responses::InteractionView;
use super::wire::required;
use crate::app::AppState;
use crate::http::conditional::ok_tagged;
use crate::http::{ApiError, Json};

pub fn configure(cfg: &mut web::ServiceConfig) {
    let resource = |tail: &str| web::resource(format!("/interactions/{{id}}/{tail}"));
    cfg.service(resource("content").route(web::put().to(update_content)))
        .service(resource("outcome").route(web::put().to(set_outcome)))
        .service(resource("end").route(web::put().to(end_interaction)))
        .service(resource("follow-up").route(web::put().to(set_follow_up)))
        .service(resource("attendees").route(web::post().to(add_attendee)))
        .service(resource("attendees/{attendee_id}").route(web::delete().to(remove_attendee)));
}

fn view(saved: Interaction) -> HttpResponse {
    ok_tagged::<InteractionView, _>(saved)
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/interactions/{id}/content", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = ContentBody,
    responses((status = 200, body = InteractionView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn update_content(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<ContentBody>,
) -> Result<HttpResponse, ApiError> {
    Ok(view(state.crm.interaction_cases.update_content(id.into_inner(), body.subject, body.description).await?))
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/interactions/{id}/outcome", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = OutcomeBody,
    responses((status = 200, body = InteractionView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn set_outcome(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<OutcomeBody>,
) -> Result<HttpResponse, ApiError> {
    let outcome = body.outcome.ok_or_else(|| required("outcome"))?;
    Ok(view(state.crm.interaction_cases.set_outcome(id.into_inner(), outcome).await?))
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/interactions/{id}/end", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = EndBody,
    responses((status = 200, body = InteractionView, description = "With the computed duration_sec"),
              (status = 400, description = "VALIDATION_ERROR (ended_at before started_at)"),
              (status = 404, description = "NOT_FOUND"), (status = 409, description = "INTERACTION_ALREADY_ENDED")),
    security(("bearer" = [])))]
pub async fn end_interaction(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<EndBody>,
) -> Result<HttpResponse, ApiError> {
    Ok(view(state.crm.interaction_cases.end(id.into_inner(), body.ended_at).await?))
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/interactions/{id}/follow-up", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = FollowUpBody,
    responses((status = 200, body = InteractionView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn set_follow_up(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<FollowUpBody>,
) -> Result<HttpResponse, ApiError> {
    let (required, date, notes) = (body.follow_up_required, body.follow_up_date, body.follow_up_notes);
    Ok(view(state.crm.interaction_cases.set_follow_up(id.into_inner(), required, date, notes).await?))
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/interactions/{id}/attendees", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = AttendeeBody,
    responses((status = 200, body = InteractionView, description = "A duplicate is not added"),
              (status = 404, description = "NOT_FOUND / USER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn add_attendee(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<AttendeeBody>,
) -> Result<HttpResponse, ApiError> {
    Ok(view(state.crm.interaction_cases.add_attendee(id.into_inner(), body.attendee_id).await?))
}

#[utoipa::path(delete, path = "/api/v1/customer-mgmt/interactions/{id}/attendees/{attendee_id}",
    tag = "customer management", params(("id" = Uuid, Path), ("attendee_id" = Uuid, Path)),
    responses((status = 200, body = InteractionView), (status = 404, description = "NOT_FOUND (not an attendee)")),
    security(("bearer" = [])))]
pub async fn remove_attendee(
    state: web::Data<AppState>,
    path: web::Path<(Uuid, Uuid)>,
) -> Result<HttpResponse, ApiError> {
    let (id, attendee) = path.into_inner();
    Ok(view(state.crm.interaction_cases.remove_attendee(id, attendee).await?))
}
