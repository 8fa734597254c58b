//! Edits of a logged interaction: content, outcome, end, follow-up and attendees.

use actix_web::{web, HttpResponse};
use crm_domain::{Interaction, RepoError};
use uuid::Uuid;

use super::interactions::{existing_interaction, interaction_error};
use super::requests::{AttendeeBody, ContentBody, EndBody, FollowUpBody, OutcomeBody};
use super::responses::InteractionView;
use super::wire::{ensure_user, now, required};
use crate::app::AppState;
use crate::http::conditional::ok_tagged;
use crate::http::retry::{settle_edit, until_settled, Attempt};
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

/// Storage errors of an interaction write, with a missing row reported as `NOT_FOUND`.
fn write_error(error: RepoError) -> ApiError {
    ApiError::storage_or(error, || ApiError::not_found("no such interaction"))
}

/// Saves the edit `decide` makes of `read` over the version it was read at; a change made meanwhile
/// is re-read and the edit decided again, so concurrent edits (two attendees added at once, an
/// outcome set while the content changes) all land. `decide` answers `None` when nothing changes.
async fn edit(
    state: &AppState,
    read: Interaction,
    decide: impl Fn(&Interaction) -> Result<Option<Interaction>, ApiError>,
) -> Result<HttpResponse, ApiError> {
    let (id, decide) = (read.id, &decide);
    let saved = settle_edit(
        read,
        || existing_interaction(state, id),
        |interaction| async move {
            let Some(next) = decide(&interaction)? else { return Ok(Attempt::Done(interaction)) };
            Attempt::of(state.crm.interactions.update(&next).await, write_error)
        },
    )
    .await?;
    Ok(ok_tagged::<InteractionView, _>(saved))
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
    let interaction = existing_interaction(&state, id.into_inner()).await?;
    edit(&state, interaction, |read| {
        read.update_content(&body.subject, body.description.clone(), now()).map(Some).map_err(interaction_error)
    })
    .await
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
    let interaction = existing_interaction(&state, id.into_inner()).await?;
    edit(&state, interaction, |read| Ok(Some(read.set_outcome(outcome, now())))).await
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
    let id = id.into_inner();
    let (state, ended_at) = (&state, body.ended_at);
    let saved = until_settled(|| async move {
        let interaction = existing_interaction(state, id).await?;
        let ended = interaction.end(ended_at, now()).map_err(interaction_error)?;
        // Ended meanwhile (stale): the re-run answers INTERACTION_ALREADY_ENDED.
        Attempt::of(state.crm.interactions.save_end(&ended).await, write_error)
    })
    .await?;
    Ok(ok_tagged::<InteractionView, _>(saved))
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
    let interaction = existing_interaction(&state, id.into_inner()).await?;
    edit(&state, interaction, |read| {
        Ok(Some(read.set_follow_up(body.follow_up_required, body.follow_up_date, body.follow_up_notes.clone(), now())))
    })
    .await
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
    let interaction = existing_interaction(&state, id.into_inner()).await?;
    ensure_user(&state, body.attendee_id, "attendee_id").await?;
    edit(&state, interaction, |read| read.add_attendee(body.attendee_id, now()).map_err(interaction_error)).await
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
    let interaction = existing_interaction(&state, id).await?;
    edit(&state, interaction, |read| read.remove_attendee(attendee, now()).map(Some).map_err(interaction_error)).await
}
