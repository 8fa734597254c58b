//! Deal stage moves: `/stage`, `/win`, `/lose`, as `crm_domain::application::DealService` decides
//! them (saved conditionally on the stage they started from, decided again after a lost race).

use actix_web::{web, HttpResponse};
use uuid::Uuid;

use super::change_views::{DealClosed, DealStageMoved};
use super::requests::{LoseBody, StageBody, WinBody};
use crate::app::AppState;
use crate::http::conditional::Tagged;
use crate::http::{ok, ApiError, Json};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/deals/{id}/stage").route(web::put().to(move_stage)))
        .service(web::resource("/deals/{id}/win").route(web::post().to(win)))
        .service(web::resource("/deals/{id}/lose").route(web::post().to(lose)));
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
    let saved = state.crm.deal_cases.move_stage(id.into_inner(), body.stage).await?;
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
    let saved = state.crm.deal_cases.win(id.into_inner(), body.close_date).await?;
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
    let saved = state.crm.deal_cases.lose(id.into_inner(), body.close_date, body.reason).await?;
    Ok(ok(DealClosed::lost(&saved)).tagged(&saved))
}
