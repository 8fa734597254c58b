//! Registration, login, token refresh and revocation, password change.

use actix_web::http::StatusCode;
use actix_web::{web, HttpResponse};
use event_contracts::identity::UserPasswordChanged;
use event_contracts::Topic;
use identity_domain::ports::{FailedLogin, NewUser, RepoError, UserRecord};
use identity_domain::{AccountAction, Email, Password, Rotation, UserStatus};
use time::OffsetDateTime;
use uuid::Uuid;

use super::contacts::identity_error;
use super::guard::{guard, Target};
use super::requests::{LoginBody, PasswordBody, RefreshBody, RegisterBody, RevokeBody};
use super::responses::{MessageView, Session, SessionUser};
use super::users::registered_event;
use crate::app::AppState;
use crate::auth::caller::token_revoked;
use crate::auth::tokens::{Subject, TokenPair, REFRESH_TTL};
use crate::auth::{passwords, Caller, TokenKind};
use crate::http::{created, ok, ApiError, Json};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/users/register").route(web::post().to(register)))
        .service(web::resource("/users/login").route(web::post().to(login)))
        .service(web::resource("/auth/refresh").route(web::post().to(refresh)))
        .service(web::resource("/auth/revoke").route(web::post().to(revoke)))
        .service(web::resource("/users/me/password").route(web::put().to(change_password)));
}

fn session(state: &AppState, user: &UserRecord, roles: Vec<String>) -> Result<Session, ApiError> {
    let subject = Subject {
        user_id: user.id,
        email: &user.email,
        roles,
        token_version: user.token_version,
        family: shared_kernel::new_id(),
    };
    Ok(Session {
        tokens: state.identity.tokens.issue_pair(&subject)?,
        user: SessionUser {
            id: user.id,
            email: user.email.clone(),
            name: user.name.clone(),
            status: user.status.as_str(),
        },
    })
}

async fn roles_of(state: &AppState, user_id: Uuid) -> Result<Vec<String>, ApiError> {
    Ok(state.identity.access.get(user_id).await?.map(|p| p.roles.to_vec()).unwrap_or_default())
}

fn invalid_credentials() -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "INVALID_CREDENTIALS", "wrong email or password")
}

/// Counts a wrong password toward the lock-out; the error to answer.
async fn failed_credential(state: &AppState, user_id: Uuid) -> ApiError {
    let settings = &state.settings;
    let outcome = state
        .identity
        .users
        .record_failed_login(user_id, settings.login_max_failed_attempts, settings.login_lock_duration)
        .await;
    match outcome {
        Ok(FailedLogin::AlreadyLocked) => locked(),
        Ok(FailedLogin::Counted | FailedLogin::LockedNow) => invalid_credentials(),
        Err(error) => ApiError::from(error),
    }
}

fn locked() -> ApiError {
    ApiError::new(StatusCode::LOCKED, "ACCOUNT_LOCKED", "too many failed logins; the account is locked for a while")
}

#[utoipa::path(post, path = "/api/v1/identity/users/register", tag = "identity", request_body = RegisterBody,
    responses((status = 201, body = Session), (status = 400, description = "VALIDATION_ERROR / INVALID_EMAIL"),
              (status = 403, description = "REGISTRATION_CLOSED"),
              (status = 409, description = "EMAIL_ALREADY_EXISTS"), (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
pub async fn register(state: web::Data<AppState>, Json(body): Json<RegisterBody>) -> Result<HttpResponse, ApiError> {
    if !state.settings.registration_open {
        return Err(ApiError::new(StatusCode::FORBIDDEN, "REGISTRATION_CLOSED", "self-registration is closed"));
    }
    let email = Email::parse(&body.email).map_err(|e| identity_error(e.into()))?;
    let name = body.name.trim();
    if name.is_empty() || name.chars().count() > 255 {
        return Err(ApiError::field("name", "must be 1 to 255 characters"));
    }
    let password = Password::parse("password", &body.password).map_err(identity_error)?;
    let password_hash = passwords::hash(password.expose().to_owned(), state.settings.bcrypt_cost).await?;
    let id = shared_kernel::new_id();
    let event = registered_event(id, &email, name);
    let user = NewUser { id, email: email.into_string(), name: name.to_owned(), password_hash };
    let user = state.identity.users.create(user, vec![event]).await.map_err(|error| match error {
        RepoError::Conflict { .. } => ApiError::conflict("EMAIL_ALREADY_EXISTS", "this email is already registered"),
        other => ApiError::from(other),
    })?;
    state.outbox.notify();
    Ok(created(session(&state, &user, vec!["user".to_owned()])?))
}

#[utoipa::path(post, path = "/api/v1/identity/users/login", tag = "identity", request_body = LoginBody,
    responses((status = 200, body = Session), (status = 401, description = "INVALID_CREDENTIALS"),
              (status = 403, description = "ACCOUNT_SUSPENDED / ACCOUNT_BANNED"), (status = 423, description = "ACCOUNT_LOCKED"),
              (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
pub async fn login(state: web::Data<AppState>, Json(body): Json<LoginBody>) -> Result<HttpResponse, ApiError> {
    let settings = &state.settings;
    // An address stored under an older, looser rule still signs in: look it up as stored.
    let lookup = Email::parse(&body.email).map_or_else(|_| body.email.trim().to_lowercase(), Email::into_string);
    let user = state.identity.users.find_by_email(&lookup).await.map_err(ApiError::from)?;
    let now = OffsetDateTime::now_utc();
    if user.as_ref().is_some_and(|u| u.is_locked(now)) {
        return Err(locked());
    }
    // Same bcrypt work whether or not the user exists.
    let matches =
        passwords::verify(body.password.clone(), user.as_ref().map(|u| u.password_hash.clone()), settings.bcrypt_cost)
            .await?;
    let Some(user) = user else {
        return Err(invalid_credentials());
    };
    if !matches {
        return Err(failed_credential(&state, user.id).await);
    }
    match user.status {
        UserStatus::Suspended => {
            return Err(ApiError::new(StatusCode::FORBIDDEN, "ACCOUNT_SUSPENDED", "the account is suspended"))
        }
        UserStatus::Banned => {
            return Err(ApiError::new(StatusCode::FORBIDDEN, "ACCOUNT_BANNED", "the account is banned"))
        }
        UserStatus::Active => {}
    }
    // A concurrent failure may have locked the account meanwhile.
    if !state.identity.users.record_successful_login(user.id).await.map_err(ApiError::from)? {
        return Err(locked());
    }
    let roles = roles_of(&state, user.id).await?;
    Ok(ok(session(&state, &user, roles)?))
}

#[utoipa::path(post, path = "/api/v1/identity/auth/refresh", tag = "identity", request_body = RefreshBody,
    responses((status = 200, body = TokenPair), (status = 401, description = "UNAUTHORIZED / TOKEN_EXPIRED / TOKEN_REVOKED")))]
pub async fn refresh(state: web::Data<AppState>, Json(body): Json<RefreshBody>) -> Result<HttpResponse, ApiError> {
    let claims = state.identity.tokens.verify(&body.refresh_token, TokenKind::Refresh)?;
    // Tokens issued before families existed form a family of their own.
    let family = claims.fam.unwrap_or(claims.jti);
    let now = OffsetDateTime::now_utc();
    let expires_at = OffsetDateTime::from_unix_timestamp(claims.exp).unwrap_or(now);
    // Rotation: the first presenter spends the token; presenting it again
    // means it was copied, and the whole family ends.
    let rotation = state
        .identity
        .revocations
        .rotate(claims.jti, expires_at, family, now + REFRESH_TTL)
        .await
        .map_err(|e| ApiError::from_domain(&e))?;
    if rotation == Rotation::Reused {
        tracing::warn!(user_id = %claims.user_id, %family, "refresh token reused; its family is revoked");
    }
    if !rotation.allows_refresh() {
        return Err(token_revoked());
    }
    let profile = state
        .identity
        .access
        .reload(claims.user_id)
        .await?
        .ok_or_else(|| ApiError::unauthorized("the token's user no longer exists"))?;
    if profile.status != UserStatus::Active {
        return Err(ApiError::unauthorized(format!("the account is {}", profile.status.as_str())));
    }
    if profile.token_version != claims.tv {
        return Err(token_revoked());
    }
    let subject = Subject {
        user_id: claims.user_id,
        email: &claims.email,
        roles: profile.roles.to_vec(),
        token_version: profile.token_version,
        family,
    };
    Ok(ok(state.identity.tokens.issue_pair(&subject)?))
}

#[utoipa::path(post, path = "/api/v1/identity/auth/revoke", tag = "identity", request_body = RevokeBody,
    responses((status = 200, body = MessageView, description = "Revoked"), (status = 401, description = "Invalid token"),
              (status = 403, description = "Another user's token and not an admin; a superadmin's token and not a superadmin")),
    security(("bearer" = [])))]
pub async fn revoke(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<RevokeBody>,
) -> Result<HttpResponse, ApiError> {
    let target = state
        .identity
        .tokens
        .verify_any(&body.token, false)
        .map_err(|_| ApiError::field("token", "is not a valid token"))?;
    if target.user_id != caller.user_id {
        if !caller.is_admin() {
            return Err(ApiError::forbidden("only your own tokens can be revoked"));
        }
        guard(&state, &caller, Target::User(target.user_id), AccountAction::RevokeCredential).await?;
    }
    let now = OffsetDateTime::now_utc();
    if target.exp > now.unix_timestamp() {
        let expires_at = OffsetDateTime::from_unix_timestamp(target.exp).unwrap_or(now);
        state.identity.revocations.revoke(target.jti, expires_at).await.map_err(|e| ApiError::from_domain(&e))?;
    }
    Ok(ok(MessageView::new("token revoked")))
}

/// The caller's account once `password` proves it is theirs: the check a login makes, under the
/// same lock-out (a wrong password counts as a failed login), for operations that ask for the
/// current password again (a password change, a new API key).
pub(crate) async fn confirm_password(
    state: &AppState,
    caller: &Caller,
    password: String,
) -> Result<UserRecord, ApiError> {
    let user = state
        .identity
        .users
        .find_by_id(caller.user_id)
        .await
        .map_err(ApiError::from)?
        .ok_or_else(super::users::user_not_found)?;
    if user.is_locked(OffsetDateTime::now_utc()) {
        return Err(locked());
    }
    if !passwords::verify(password, Some(user.password_hash.clone()), state.settings.bcrypt_cost).await? {
        return Err(failed_credential(state, user.id).await);
    }
    Ok(user)
}

#[utoipa::path(put, path = "/api/v1/identity/users/me/password", tag = "identity", request_body = PasswordBody,
    responses((status = 200, body = MessageView, description = "Changed; earlier tokens stop working, and the caller's API keys unless kept"),
              (status = 400, description = "VALIDATION_ERROR"), (status = 401, description = "INVALID_CREDENTIALS"),
              (status = 423, description = "ACCOUNT_LOCKED: too many wrong current passwords")),
    security(("bearer" = [])))]
pub async fn change_password(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<PasswordBody>,
) -> Result<HttpResponse, ApiError> {
    let new_password = Password::parse("new_password", &body.new_password).map_err(identity_error)?;
    let user = confirm_password(&state, &caller, body.current_password).await?;
    let hash = passwords::hash(new_password.expose().to_owned(), state.settings.bcrypt_cost).await?;
    let event = UserPasswordChanged { user_id: user.id }.to_event(user.id, OffsetDateTime::now_utc());
    let revoke_keys = !body.keep_api_keys;
    state.identity.users.change_password(user.id, hash, revoke_keys, vec![event]).await.map_err(ApiError::from)?;
    state.identity.access.invalidate_user(user.id).await;
    state.outbox.notify();
    let message = if revoke_keys {
        "password changed and your API keys revoked; sign in again"
    } else {
        "password changed (your API keys still work); sign in again"
    };
    Ok(ok(MessageView::new(message)))
}
