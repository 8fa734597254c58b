//! Profiles: one per user. Owners read and change their own; anyone signed
//! in reads public ones; admins verify and ban; the public list needs no
//! token.

use actix_web::{web, HttpResponse};
use identity_domain::profile::{Moderation, ProfileFields, ProfileRecord};
use uuid::Uuid;

use super::actor;
use super::requests::{ProfileBody, VisibilityBody};
use super::responses::ProfileView;
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::{list, no_content, ApiError, Json, PageQuery};

time::serde::format_description!(iso_date, Date, "[year]-[month]-[day]");

impl From<ProfileRecord> for ProfileView {
    fn from(p: ProfileRecord) -> Self {
        Self {
            id: p.id,
            user_id: p.user_id,
            display_name: p.display_name,
            first_name: p.first_name,
            last_name: p.last_name,
            gender: p.gender.map(|g| g.as_str()),
            date_of_birth: p.date_of_birth,
            bio: p.bio,
            avatar_url: p.avatar_url,
            timezone: p.timezone,
            language: p.language,
            country: p.country,
            website: p.website,
            linkedin_url: p.linkedin_url,
            twitter_url: p.twitter_url,
            github_url: p.github_url,
            is_public: p.is_public,
            is_active: p.is_active,
            is_banned: p.is_banned,
            is_verified: p.is_verified,
            created_at: p.created_at,
            updated_at: p.updated_at,
        }
    }
}

impl From<ProfileBody> for ProfileFields {
    fn from(body: ProfileBody) -> Self {
        Self {
            display_name: body.display_name,
            first_name: body.first_name,
            last_name: body.last_name,
            gender: body.gender,
            date_of_birth: body.date_of_birth,
            bio: body.bio,
            avatar_url: body.avatar_url,
            timezone: body.timezone,
            language: body.language,
            country: body.country,
            website: body.website,
            linkedin_url: body.linkedin_url,
            twitter_url: body.twitter_url,
            github_url: body.github_url,
            is_public: body.is_public,
        }
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    // `/me` before `/{id}`, so "me" is never read as an id.
    cfg.service(web::resource("/profiles").route(web::post().to(create_profile)))
        .service(
            web::resource("/profiles/me").route(web::get().to(get_my_profile)).route(web::put().to(update_my_profile)),
        )
        .service(
            web::resource("/profiles/{id}")
                .route(web::get().to(get_profile))
                .route(web::put().to(update_profile))
                .route(web::delete().to(delete_profile)),
        )
        .service(web::resource("/profiles/{id}/visibility").route(web::put().to(set_visibility)))
        .service(web::resource("/profiles/{id}/verify").route(web::put().to(verify_profile)))
        .service(web::resource("/profiles/{id}/ban").route(web::put().to(ban_profile)))
        .service(web::resource("/public/profiles").route(web::get().to(list_public_profiles)));
}

#[utoipa::path(post, path = "/api/v1/identity/profiles", tag = "identity", request_body = ProfileBody,
    responses((status = 201, body = ProfileView),
              (status = 400, description = "VALIDATION_ERROR; details name the field (also unknown timezone, language, country)"),
              (status = 409, description = "ALREADY_EXISTS: the caller has a profile; PROFILE_BANNED: the caller's profile was banned, deleting it does not lift the ban")),
    security(("bearer" = [])))]
pub async fn create_profile(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<ProfileBody>,
) -> Result<HttpResponse, ApiError> {
    let profile = state.identity.app.profiles.create(caller.user_id, body.into()).await?;
    Ok(created_tagged::<ProfileView, _>(profile))
}

#[utoipa::path(get, path = "/api/v1/identity/profiles/me", tag = "identity",
    responses((status = 200, body = ProfileView), (status = 404, description = "NOT_FOUND: no profile yet")),
    security(("bearer" = [])))]
pub async fn get_my_profile(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<ProfileView, _>(state.identity.app.profiles.mine(caller.user_id).await?))
}

#[utoipa::path(put, path = "/api/v1/identity/profiles/me", tag = "identity", request_body = ProfileBody,
    responses((status = 200, body = ProfileView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 404, description = "NOT_FOUND: no profile yet")),
    security(("bearer" = [])))]
pub async fn update_my_profile(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<ProfileBody>,
) -> Result<HttpResponse, ApiError> {
    let profile = state.identity.app.profiles.update_mine(caller.user_id, body.into()).await?;
    Ok(ok_tagged::<ProfileView, _>(profile))
}

#[utoipa::path(get, path = "/api/v1/identity/profiles/{id}", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 200, body = ProfileView),
              (status = 404, description = "NOT_FOUND: missing, or someone else's profile that is not public")),
    security(("bearer" = [])))]
pub async fn get_profile(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    let profile = state.identity.app.profiles.view(caller.user_id, id.into_inner()).await?;
    Ok(ok_tagged::<ProfileView, _>(profile))
}

#[utoipa::path(put, path = "/api/v1/identity/profiles/{id}", tag = "identity", params(("id" = Uuid, Path)),
    request_body = ProfileBody,
    responses((status = 200, body = ProfileView), (status = 400, description = "VALIDATION_ERROR"),
              (status = 403, description = "FORBIDDEN: someone else's profile"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn update_profile(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<ProfileBody>,
) -> Result<HttpResponse, ApiError> {
    let profile = state.identity.app.profiles.update(caller.user_id, id.into_inner(), body.into()).await?;
    Ok(ok_tagged::<ProfileView, _>(profile))
}

#[utoipa::path(delete, path = "/api/v1/identity/profiles/{id}", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted"), (status = 403, description = "FORBIDDEN: someone else's profile"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn delete_profile(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    state.identity.app.profiles.delete(caller.user_id, id.into_inner()).await?;
    Ok(no_content())
}

#[utoipa::path(put, path = "/api/v1/identity/profiles/{id}/visibility", tag = "identity", params(("id" = Uuid, Path)),
    request_body = VisibilityBody,
    responses((status = 200, body = ProfileView), (status = 403, description = "FORBIDDEN: someone else's profile"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn set_visibility(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<VisibilityBody>,
) -> Result<HttpResponse, ApiError> {
    let profile = state.identity.app.profiles.set_visibility(caller.user_id, id.into_inner(), body.is_public).await?;
    Ok(ok_tagged::<ProfileView, _>(profile))
}

/// An administrator verifies or bans a profile; a superadmin's only a superadmin (docs/identity.md).
async fn moderate(state: &AppState, caller: &Caller, id: Uuid, action: Moderation) -> Result<HttpResponse, ApiError> {
    let profile = state.identity.app.profiles.moderate(&actor(caller), id, action).await?;
    Ok(ok_tagged::<ProfileView, _>(profile))
}

#[utoipa::path(put, path = "/api/v1/identity/profiles/{id}/verify", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 200, description = "The profile, with is_verified set", body = ProfileView),
              (status = 403, description = "Admins only; FORBIDDEN: a superadmin's profile and the caller is not a superadmin"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn verify_profile(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    moderate(&state, &caller, id.into_inner(), Moderation::Verify).await
}

#[utoipa::path(put, path = "/api/v1/identity/profiles/{id}/ban", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 200, description = "The profile, with is_banned set", body = ProfileView),
              (status = 403, description = "Admins only; FORBIDDEN: a superadmin's profile and the caller is not a superadmin"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn ban_profile(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    moderate(&state, &caller, id.into_inner(), Moderation::Ban).await
}

#[utoipa::path(get, path = "/api/v1/identity/public/profiles", tag = "identity", params(PageQuery),
    responses((status = 200, description = "Public, active, not banned profiles, newest first (list envelope)",
               body = [ProfileView]),
              (status = 400, description = "VALIDATION_ERROR for page or page_size out of bounds")))]
pub async fn list_public_profiles(
    state: web::Data<AppState>,
    query: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let page = query.request()?;
    let profiles = state.identity.app.profiles.list_public(page).await?;
    Ok(list(profiles.map(ProfileView::from)))
}
