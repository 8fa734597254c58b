//! `Caller`: the authenticated user of a request, with a guard for roles
//! and permissions. Every protected handler takes one.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use actix_web::dev::Payload;
use actix_web::http::header::AUTHORIZATION;
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use identity_domain::{PermissionSet, TokenRef, UserStatus};
use uuid::Uuid;

use super::tokens::{Claims, TokenKind};
use crate::app::AppState;
use crate::http::ApiError;

#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: Uuid,
    pub email: String,
    /// Current roles, from the database (not the token).
    pub roles: Arc<[String]>,
    pub permissions: Arc<PermissionSet>,
    pub claims: Claims,
}

pub fn token_revoked() -> ApiError {
    ApiError::new(StatusCode::UNAUTHORIZED, "TOKEN_REVOKED", "the token has been revoked")
}

pub fn bearer(req: &HttpRequest) -> Result<String, ApiError> {
    let header = req
        .headers()
        .get(AUTHORIZATION)
        .ok_or_else(|| ApiError::unauthorized("an Authorization: Bearer token is required"))?;
    let value = header.to_str().map_err(|_| ApiError::unauthorized("the Authorization header is malformed"))?;
    let (scheme, token) =
        value.trim().split_once(' ').ok_or_else(|| ApiError::unauthorized("the Authorization header is malformed"))?;
    if !scheme.eq_ignore_ascii_case("bearer") || token.trim().is_empty() {
        return Err(ApiError::unauthorized("the Authorization header must use the Bearer scheme"));
    }
    Ok(token.trim().to_owned())
}

/// Checks a verified token against revocation and the user's current state.
pub async fn authenticate(state: &AppState, token: &str) -> Result<Caller, ApiError> {
    let claims = state.identity.tokens.verify(token, TokenKind::Access)?;
    let token_ref = TokenRef { jti: claims.jti, family: claims.fam, user_id: claims.user_id, token_version: claims.tv };
    let revoked = state.identity.revocations.is_revoked(&token_ref).await;
    if revoked.map_err(|e| ApiError::from_domain(&e))? {
        return Err(token_revoked());
    }
    let mut profile = state.identity.access.get(claims.user_id).await?;
    if profile.as_ref().is_some_and(|p| p.token_version < claims.tv) {
        // A token newer than the cached entry: the user changed elsewhere.
        // (Versions only grow, so an older token needs no second look.)
        profile = state.identity.access.reload(claims.user_id).await?;
    }
    let profile = profile.ok_or_else(|| ApiError::unauthorized("the token's user no longer exists"))?;
    if profile.status != UserStatus::Active {
        return Err(ApiError::unauthorized(format!("the account is {}", profile.status.as_str())));
    }
    if profile.token_version != claims.tv {
        return Err(token_revoked());
    }
    Ok(Caller {
        user_id: claims.user_id,
        email: claims.email.clone(),
        roles: profile.roles.clone(),
        permissions: profile.permissions.clone(),
        claims,
    })
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        // The route gate authenticated the caller before the handler ran.
        let caller = req.extensions().get::<Caller>().cloned();
        let pattern = req.match_pattern();
        Box::pin(async move {
            caller.ok_or_else(|| {
                // Deny by default: a handler that needs a caller on a route
                // the access table does not guard is a wiring mistake.
                tracing::error!(route = pattern.as_deref().unwrap_or("?"), "route has no access rule");
                ApiError::forbidden("you do not have permission to do this")
            })
        })
    }
}

fn forbidden() -> ApiError {
    ApiError::forbidden("you do not have permission to do this")
}

impl Caller {
    pub fn has_role(&self, role: &str) -> bool {
        self.roles.iter().any(|r| r == role)
    }

    /// `admin` or `superadmin`.
    pub fn is_admin(&self) -> bool {
        self.has_role("admin") || self.has_role("superadmin")
    }

    pub fn require_role(&self, role: &str) -> Result<(), ApiError> {
        if self.has_role(role) {
            Ok(())
        } else {
            Err(forbidden())
        }
    }

    pub fn require_any_role(&self, roles: &[&str]) -> Result<(), ApiError> {
        if roles.iter().any(|r| self.has_role(r)) {
            Ok(())
        } else {
            Err(forbidden())
        }
    }

    pub fn require_all_roles(&self, roles: &[&str]) -> Result<(), ApiError> {
        if roles.iter().all(|r| self.has_role(r)) {
            Ok(())
        } else {
            Err(forbidden())
        }
    }

    /// `resource:action`, honouring `resource:*` and `*:*`.
    pub fn require(&self, resource: &str, action: &str) -> Result<(), ApiError> {
        if self.permissions.allows(resource, action) {
            Ok(())
        } else {
            Err(forbidden())
        }
    }

    /// Admin-only endpoints (the spec's `A`).
    pub fn require_admin(&self) -> Result<(), ApiError> {
        self.require_any_role(&["admin", "superadmin"])
    }
}
