//! Registration, login, token refresh and revocation, password change.

use actix_web::{web, HttpResponse};
use identity_domain::application::{PasswordChange, PresentedToken, Registration, SignedIn};
use identity_domain::ports::UserRecord;

use super::actor;
use super::requests::{LoginBody, PasswordBody, RefreshBody, RegisterBody, RevokeBody};
use super::responses::{MessageView, Session, SessionUser};
use crate::app::AppState;
use crate::auth::tokens::{Claims, Subject, TokenPair};
use crate::auth::{Caller, TokenKind};
use crate::http::{created, ok, ApiError, Json};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/users/register").route(web::post().to(register)))
        .service(web::resource("/users/login").route(web::post().to(login)))
        .service(web::resource("/auth/refresh").route(web::post().to(refresh)))
        .service(web::resource("/auth/revoke").route(web::post().to(revoke)))
        .service(web::resource("/users/me/password").route(web::put().to(change_password)));
}

/// A new session (a new refresh-token family) for a user who just proved who they are.
fn session(state: &AppState, SignedIn { user, roles }: SignedIn) -> Result<Session, ApiError> {
    let UserRecord { id, email, name, status, token_version, .. } = user;
    let subject = Subject { user_id: id, email: &email, roles, token_version, family: shared_kernel::new_id() };
    Ok(Session {
        tokens: state.identity.tokens.issue_pair(&subject)?,
        user: SessionUser { id, email: email.clone(), name, status: status.as_str() },
    })
}

/// The claims of a verified token that the use cases decide on.
fn presented(claims: &Claims) -> PresentedToken {
    PresentedToken {
        jti: claims.jti,
        family: claims.fam,
        user_id: claims.user_id,
        token_version: claims.tv,
        expires_at: claims.exp,
    }
}

#[utoipa::path(post, path = "/api/v1/identity/users/register", tag = "identity", request_body = RegisterBody,
    responses((status = 201, body = Session), (status = 400, description = "VALIDATION_ERROR / INVALID_EMAIL"),
              (status = 403, description = "REGISTRATION_CLOSED"),
              (status = 409, description = "EMAIL_ALREADY_EXISTS"), (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
pub async fn register(state: web::Data<AppState>, Json(body): Json<RegisterBody>) -> Result<HttpResponse, ApiError> {
    let registration = Registration { email: body.email, name: body.name, password: body.password };
    let signed_in = state.identity.app.accounts.register(registration).await?;
    Ok(created(session(&state, signed_in)?))
}

#[utoipa::path(post, path = "/api/v1/identity/users/login", tag = "identity", request_body = LoginBody,
    responses((status = 200, body = Session), (status = 401, description = "INVALID_CREDENTIALS"),
              (status = 403, description = "ACCOUNT_SUSPENDED / ACCOUNT_BANNED"), (status = 423, description = "ACCOUNT_LOCKED"),
              (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
pub async fn login(state: web::Data<AppState>, Json(body): Json<LoginBody>) -> Result<HttpResponse, ApiError> {
    let signed_in = state.identity.app.accounts.login(&body.email, &body.password).await?;
    Ok(ok(session(&state, signed_in)?))
}

#[utoipa::path(post, path = "/api/v1/identity/auth/refresh", tag = "identity", request_body = RefreshBody,
    responses((status = 200, body = TokenPair), (status = 401, description = "UNAUTHORIZED / TOKEN_EXPIRED / TOKEN_REVOKED")))]
pub async fn refresh(state: web::Data<AppState>, Json(body): Json<RefreshBody>) -> Result<HttpResponse, ApiError> {
    let claims = state.identity.tokens.verify(&body.refresh_token, TokenKind::Refresh)?;
    let renewal = state.identity.app.sessions.refresh(presented(&claims)).await?;
    let subject = Subject {
        user_id: claims.user_id,
        email: &claims.email,
        roles: renewal.roles,
        token_version: renewal.token_version,
        family: renewal.family,
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
    state.identity.app.sessions.revoke(&actor(&caller), presented(&target)).await?;
    Ok(ok(MessageView::new("token revoked")))
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
    let change = PasswordChange {
        current_password: body.current_password,
        new_password: body.new_password,
        keep_api_keys: body.keep_api_keys,
    };
    let changed = state.identity.app.accounts.change_password(caller.user_id, change).await?;
    let message = if changed.api_keys_revoked {
        "password changed and your API keys revoked; sign in again"
    } else {
        "password changed (your API keys still work); sign in again"
    };
    Ok(ok(MessageView::new(message)))
}
