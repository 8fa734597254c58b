//! Profiles: one per user. Owners read and change their own; anyone signed
//! in reads public ones; admins verify and ban; the public list needs no
//! token.

use actix_web::{web, HttpResponse};
use identity_domain::ports::RepoError;
use identity_domain::profile::{Moderation, NewProfile, ProfileCreation, ProfileFields, ProfileRecord};
use identity_domain::AccountAction;
use time::OffsetDateTime;
use uuid::Uuid;

use super::contacts::identity_error;
use super::guard::{guard, Target};
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

impl ProfileBody {
    fn validate(self, creating: bool) -> Result<ProfileFields, ApiError> {
        ProfileFields {
            display_name: self.display_name,
            first_name: self.first_name,
            last_name: self.last_name,
            gender: self.gender,
            date_of_birth: self.date_of_birth,
            bio: self.bio,
            avatar_url: self.avatar_url,
            timezone: self.timezone,
            language: self.language,
            country: self.country,
            website: self.website,
            linkedin_url: self.linkedin_url,
            twitter_url: self.twitter_url,
            github_url: self.github_url,
            is_public: self.is_public,
        }
        .validate(creating, OffsetDateTime::now_utc().date())
        .map_err(identity_error)
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

fn profile_not_found() -> ApiError {
    ApiError::not_found("no such profile")
}

fn repo_error(error: RepoError) -> ApiError {
    match error {
        RepoError::NotFound => profile_not_found(),
        RepoError::Conflict { .. } => ApiError::conflict("ALREADY_EXISTS", "you already have a profile"),
        RepoError::MissingReference { field } => ApiError::field(field, "must exist in the reference data"),
        other => ApiError::from(other),
    }
}

/// The caller's own profile `id`: 404 when missing, 403 when someone else's.
async fn owned(state: &AppState, caller: &Caller, id: Uuid) -> Result<ProfileRecord, ApiError> {
    let profile = state.identity.profiles.find_by_id(id).await.map_err(repo_error)?.ok_or_else(profile_not_found)?;
    if profile.user_id != caller.user_id {
        return Err(ApiError::forbidden("only the owner may change a profile"));
    }
    Ok(profile)
}

async fn my_profile(state: &AppState, caller: &Caller) -> Result<ProfileRecord, ApiError> {
    state
        .identity
        .profiles
        .find_by_user(caller.user_id)
        .await
        .map_err(repo_error)?
        .ok_or_else(|| ApiError::not_found("you have no profile yet"))
}

async fn apply(state: &AppState, caller: &Caller, id: Uuid, fields: ProfileFields) -> Result<HttpResponse, ApiError> {
    let profile = state.identity.profiles.update(caller.user_id, id, fields).await.map_err(repo_error)?;
    state.outbox.notify();
    Ok(ok_tagged::<ProfileView, _>(profile))
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
    let fields = body.validate(true)?;
    let profile = NewProfile { id: shared_kernel::new_id(), user_id: caller.user_id, fields };
    let profile = match state.identity.profiles.create(profile).await.map_err(repo_error)? {
        ProfileCreation::Created(profile) => *profile,
        ProfileCreation::Banned => {
            return Err(ApiError::conflict(
                "PROFILE_BANNED",
                "your profile was banned; a new profile cannot be created",
            ))
        }
    };
    state.outbox.notify();
    Ok(created_tagged::<ProfileView, _>(profile))
}

#[utoipa::path(get, path = "/api/v1/identity/profiles/me", tag = "identity",
    responses((status = 200, body = ProfileView), (status = 404, description = "NOT_FOUND: no profile yet")),
    security(("bearer" = [])))]
pub async fn get_my_profile(state: web::Data<AppState>, caller: Caller) -> Result<HttpResponse, ApiError> {
    Ok(ok_tagged::<ProfileView, _>(my_profile(&state, &caller).await?))
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
    let fields = body.validate(false)?;
    let profile = my_profile(&state, &caller).await?;
    apply(&state, &caller, profile.id, fields).await
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
    let profile = state
        .identity
        .profiles
        .find_by_id(id.into_inner())
        .await
        .map_err(repo_error)?
        .filter(|p| p.user_id == caller.user_id || p.is_publicly_visible())
        .ok_or_else(profile_not_found)?;
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
    let profile = owned(&state, &caller, id.into_inner()).await?;
    let fields = body.validate(false)?;
    apply(&state, &caller, profile.id, fields).await
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
    let profile = owned(&state, &caller, id.into_inner()).await?;
    state.identity.profiles.delete(caller.user_id, profile.id).await.map_err(repo_error)?;
    state.outbox.notify();
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
    let profile = owned(&state, &caller, id.into_inner()).await?;
    let fields = ProfileFields { is_public: Some(body.is_public), ..ProfileFields::default() };
    apply(&state, &caller, profile.id, fields).await
}

/// An administrator verifies or bans a profile; a superadmin's only a superadmin (docs/identity.md).
async fn moderate(state: &AppState, caller: &Caller, id: Uuid, action: Moderation) -> Result<HttpResponse, ApiError> {
    let profile = state.identity.profiles.find_by_id(id).await.map_err(repo_error)?.ok_or_else(profile_not_found)?;
    guard(state, caller, Target::User(profile.user_id), AccountAction::ModerateProfile).await?;
    let profile = state.identity.profiles.moderate(id, action).await.map_err(repo_error)?;
    state.outbox.notify();
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
    let profiles = state.identity.profiles.list_public(page).await.map_err(repo_error)?;
    Ok(list(profiles.map(ProfileView::from)))
}
