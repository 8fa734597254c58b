//! `Caller`: who a request acts for, with a guard for roles and permissions.
//! Every protected handler takes one. A caller is a user, authenticated by an
//! access token or by one of their API keys (docs/identity.md); every guard works
//! the same for both, a key only ever narrowing what its owner may do.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use actix_web::dev::Payload;
use actix_web::http::header::AUTHORIZATION;
use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpMessage, HttpRequest};
use identity_domain::api_key::KEY_PREFIX;
use identity_domain::{PermissionSet, TokenRef, UserStatus};
use uuid::Uuid;

use super::tokens::Claims;
use crate::app::AppState;
use crate::http::ApiError;

#[derive(Debug, Clone)]
pub struct Caller {
    pub user_id: Uuid,
    /// Current roles, from the database (not the token); none for an API key.
    pub roles: Arc<[String]>,
    /// The user's current permissions.
    pub permissions: Arc<PermissionSet>,
    pub credential: Credential,
}

/// What the caller presented.
#[derive(Debug, Clone)]
pub enum Credential {
    AccessToken(Arc<Claims>),
    /// An API key: it may do only what both its own permissions and its owner's allow.
    ApiKey {
        id: Uuid,
        permissions: Arc<PermissionSet>,
    },
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

/// Authenticates a bearer credential: an API key (`tly_…`) or an access token.
pub async fn authenticate(state: &AppState, token: &str) -> Result<Caller, ApiError> {
    if token.starts_with(KEY_PREFIX) {
        return super::api_keys::authenticate_key(state, token).await;
    }
    authenticate_token(state, token).await
}

/// Checks a verified token against revocation and the user's current state.
async fn authenticate_token(state: &AppState, token: &str) -> Result<Caller, ApiError> {
    let claims = state.identity.tokens.verify_access(token)?;
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
        roles: profile.roles.clone(),
        permissions: profile.permissions.clone(),
        credential: Credential::AccessToken(claims),
    })
}

impl FromRequest for Caller {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _payload: &mut Payload) -> Self::Future {
        // The route gate authenticated the caller before the handler ran.
        let caller = req.extensions().get::<Caller>().cloned();
        let outcome = caller.ok_or_else(|| {
            // Deny by default: a handler that needs a caller on a route the access table does not
            // guard is a wiring mistake. (Only then is the pattern looked up: a walk of the routes.)
            let pattern = req.match_pattern();
            tracing::error!(route = pattern.as_deref().unwrap_or("?"), "route has no access rule");
            ApiError::forbidden("you do not have permission to do this")
        });
        Box::pin(std::future::ready(outcome))
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

    /// `resource:action`, honouring `resource:*` and `*:*`; through an API key, the key must
    /// allow it as well as its owner.
    pub fn require(&self, resource: &str, action: &str) -> Result<(), ApiError> {
        let key_allows = match &self.credential {
            Credential::ApiKey { permissions, .. } => permissions.allows(resource, action),
            Credential::AccessToken(_) => true,
        };
        if key_allows && self.permissions.allows(resource, action) {
            Ok(())
        } else {
            Err(forbidden())
        }
    }

    /// The API key the caller authenticated with, if any.
    pub fn api_key(&self) -> Option<Uuid> {
        match &self.credential {
            Credential::ApiKey { id, .. } => Some(*id),
            Credential::AccessToken(_) => None,
        }
    }

    /// Admin-only endpoints (the spec's `A`).
    pub fn require_admin(&self) -> Result<(), ApiError> {
        self.require_any_role(&["admin", "superadmin"])
    }
}
