//! Deal stage moves: `/stage`, `/win`, `/lose`. Each is saved conditionally on the stage it started
//! from; if the deal moved meanwhile the move is re-decided on the fresh state (a deal closed
//! meanwhile then answers `MOVE_STAGE_FAILED`).

use actix_web::{web, HttpResponse};
use crm_domain::{Deal, DealError, RepoError, StageTransition};
use time::OffsetDateTime;
use uuid::Uuid;

use super::change_views::{DealClosed, DealStageMoved};
use super::deals::{deal_error, existing_deal};
use super::requests::{LoseBody, StageBody, WinBody};
use super::wire::now;
use crate::app::AppState;
use crate::http::conditional::Tagged;
use crate::http::retry::{until_settled, Attempt};
use crate::http::{ok, ApiError, Json};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/deals/{id}/stage").route(web::put().to(move_stage)))
        .service(web::resource("/deals/{id}/win").route(web::post().to(win)))
        .service(web::resource("/deals/{id}/lose").route(web::post().to(lose)));
}

/// Loads, moves and saves; `Ok(deal)` unchanged when the move is a no-op.
async fn change_stage<F>(state: &AppState, id: Uuid, step: F) -> Result<Deal, ApiError>
where
    F: Fn(&Deal, OffsetDateTime) -> Result<Option<StageTransition>, DealError>,
{
    let step = &step;
    until_settled(|| async move {
        let deal = existing_deal(state, id).await?;
        let Some(moved) = step(&deal, now()).map_err(deal_error)? else {
            return Ok(Attempt::Done(deal));
        };
        match state.crm.deals.save_stage_change(&moved).await {
            Ok(saved) => {
                state.outbox.notify();
                Ok(Attempt::Done(saved))
            }
            Err(RepoError::Stale) => Ok(Attempt::Stale),
            Err(error) => Err(ApiError::storage_or(error, || ApiError::not_found("no such deal"))),
        }
    })
    .await
}

#[utoipa::path(put, path = "/api/v1/customer-mgmt/deals/{id}/stage", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = StageBody,
    responses((status = 200, body = DealStageMoved),
              (status = 400, description = "MOVE_STAGE_FAILED (closed deal) / VALIDATION_ERROR"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn move_stage(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<StageBody>,
) -> Result<HttpResponse, ApiError> {
    let saved = change_stage(&state, id.into_inner(), |d, at| d.move_to(body.stage, at)).await?;
    Ok(ok(DealStageMoved::from(&saved)).tagged(&saved))
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/deals/{id}/win", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = WinBody,
    responses((status = 200, body = DealClosed, description = "Won"),
              (status = 400, description = "MOVE_STAGE_FAILED (closed deal)"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn win(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<WinBody>,
) -> Result<HttpResponse, ApiError> {
    let saved = change_stage(&state, id.into_inner(), |d, at| d.win(body.close_date, at).map(Some)).await?;
    Ok(ok(DealClosed::won(&saved)).tagged(&saved))
}

#[utoipa::path(post, path = "/api/v1/customer-mgmt/deals/{id}/lose", tag = "customer management",
    params(("id" = Uuid, Path)), request_body = LoseBody,
    responses((status = 200, body = DealClosed, description = "Lost, with loss_reason"),
              (status = 400, description = "MOVE_STAGE_FAILED (closed deal)"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn lose(
    state: web::Data<AppState>,
    id: web::Path<Uuid>,
    Json(body): Json<LoseBody>,
) -> Result<HttpResponse, ApiError> {
    let step = |d: &Deal, at| d.lose(body.close_date, body.reason.clone(), at).map(Some);
    let saved = change_stage(&state, id.into_inner(), step).await?;
    Ok(ok(DealClosed::lost(&saved)).tagged(&saved))
}
