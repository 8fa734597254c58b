//! Users: the current user, administration of users and their status.

use actix_web::{web, HttpResponse};
use identity_domain::ports::{UserFilter, UserRecord};
use identity_domain::UserStatus;
use time::OffsetDateTime;
use uuid::Uuid;

use super::actor;
use super::requests::{ReasonBody, StatusBody, UserListQuery};
use super::responses::{UserStatusView, UserView};
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::{ok_tagged, Tagged};
use crate::http::{list, ok, ApiError, Json, OptionalJson};

impl From<UserRecord> for UserView {
    fn from(u: UserRecord) -> Self {
        let now = OffsetDateTime::now_utc();
        Self {
            is_locked: u.is_locked(now),
            id: u.id,
            email: u.email,
            name: u.name,
            status: u.status.as_str(),
            is_email_verified: u.is_email_verified,
            failed_login_attempts: u.failed_login_count,
            last_login_at: u.last_login_at,
            created_at: u.created_at,
            updated_at: u.updated_at,
        }
    }
}

pub(crate) fn user_not_found() -> ApiError {
    ApiError::from(identity_domain::IdentityError::NotFound(identity_domain::Missing::User))
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/users/me").route(web::get().to(me)))
        .service(web::resource("/users").route(web::get().to(list_users)))
        .service(web::resource("/users/{id}").route(web::get().to(get_user)))
        .service(web::resource("/users/{id}/suspend").route(web::put().to(suspend)))
        .service(web::resource("/users/{id}/ban").route(web::put().to(ban)))
        .service(web::resource("/users/{id}/status").route(web::patch().to(set_status)))
        .service(web::resource("/users/{id}/unlock").route(web::post().to(unlock)));
}

#[utoipa::path(get, path = "/api/v1/identity/users/me", tag = "identity",
    responses((status = 200, body = UserView), (status = 401, description = "Missing, invalid, expired or revoked token")),
    security(("bearer" = [])))]
pub async fn me(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    let user =
        state.identity.users.find_by_id(caller.user_id).await.map_err(ApiError::from)?.ok_or_else(user_not_found)?;
    Ok(ok_tagged::<UserView, _>(user))
}

#[utoipa::path(get, path = "/api/v1/identity/users", tag = "identity", params(UserListQuery),
    responses((status = 200, body = [UserView]), (status = 403, description = "Admins only")),
    security(("bearer" = [])))]
pub async fn list_users(
    state: web::Data<AppState>,
    query: web::Query<UserListQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = crate::http::PageQuery { page: query.page, page_size: query.page_size }.request()?;
    let status = match query.status.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        Some(raw) => Some(
            UserStatus::parse(raw).ok_or_else(|| ApiError::field("status", "must be active, suspended or banned"))?,
        ),
        None => None,
    };
    let filter = UserFilter { status, is_email_verified: query.is_email_verified, search: query.search.clone() };
    let users = state.identity.users.list(&filter, page).await.map_err(ApiError::from)?;
    Ok(list(users.map(UserView::from)))
}

#[utoipa::path(get, path = "/api/v1/identity/users/{id}", tag = "identity",
    params(("id" = Uuid, Path)),
    responses((status = 200, body = UserView), (status = 403, description = "Not yourself and not admin/superadmin/manager"),
              (status = 404, description = "USER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_user(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let user = state.identity.app.users.view(&actor(&caller), id.into_inner()).await?;
    Ok(ok_tagged::<UserView, _>(user))
}

/// Moves a user's status (the use case applies the superadmin rule and the status machine).
async fn move_status(
    state: &AppState,
    caller: &Caller,
    id: Uuid,
    to: UserStatus,
    reason: Option<&str>,
) -> Result<UserRecord, ApiError> {
    Ok(state.identity.app.users.change_status(&actor(caller), id, to, reason).await?)
}

fn optional_reason(body: OptionalJson<ReasonBody>) -> Option<String> {
    body.0.and_then(|b| b.reason)
}

#[utoipa::path(put, path = "/api/v1/identity/users/{id}/suspend", tag = "identity", params(("id" = Uuid, Path)),
    request_body(content = Option<ReasonBody>, description = "Optional reason"),
    responses((status = 200, body = UserView), (status = 403, description = "FORBIDDEN: the user is a superadmin and the caller is not"),
              (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn suspend(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: OptionalJson<ReasonBody>,
) -> Result<HttpResponse, ApiError> {
    let user =
        move_status(&state, &caller, id.into_inner(), UserStatus::Suspended, optional_reason(body).as_deref()).await?;
    Ok(ok_tagged::<UserView, _>(user))
}

#[utoipa::path(put, path = "/api/v1/identity/users/{id}/ban", tag = "identity", params(("id" = Uuid, Path)),
    request_body(content = Option<ReasonBody>, description = "Optional reason"),
    responses((status = 200, body = UserView), (status = 403, description = "FORBIDDEN: the user is a superadmin and the caller is not"),
              (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn ban(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    body: OptionalJson<ReasonBody>,
) -> Result<HttpResponse, ApiError> {
    let user =
        move_status(&state, &caller, id.into_inner(), UserStatus::Banned, optional_reason(body).as_deref()).await?;
    Ok(ok_tagged::<UserView, _>(user))
}

#[utoipa::path(patch, path = "/api/v1/identity/users/{id}/status", tag = "identity", operation_id = "set_user_status", params(("id" = Uuid, Path)),
    request_body = StatusBody,
    responses((status = 200, body = UserStatusView),
              (status = 403, description = "FORBIDDEN: the user is a superadmin and the caller is not"),
              (status = 409, description = "INVALID_STATUS_TRANSITION")),
    security(("bearer" = [])))]
pub async fn set_status(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<StatusBody>,
) -> Result<HttpResponse, ApiError> {
    let to = UserStatus::parse(&body.status)
        .ok_or_else(|| ApiError::field("status", "must be active, suspended or banned"))?;
    let user = move_status(&state, &caller, id.into_inner(), to, body.reason.as_deref()).await?;
    Ok(ok(UserStatusView {
        message: format!("user status changed to {}", user.status.as_str()),
        id: user.id,
        status: user.status.as_str(),
    })
    .tagged(&user))
}

#[utoipa::path(post, path = "/api/v1/identity/users/{id}/unlock", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 200, body = UserView), (status = 403, description = "FORBIDDEN: the user is a superadmin and the caller is not"),
              (status = 404, description = "USER_NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn unlock(state: web::Data<AppState>, caller: Caller, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let user = state.identity.app.users.unlock(&actor(&caller), id.into_inner()).await?;
    Ok(ok_tagged::<UserView, _>(user))
}
