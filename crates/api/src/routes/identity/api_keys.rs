//! API keys (docs/identity.md): `POST|GET /identity/api-keys`, `DELETE /identity/api-keys/{id}`.
//! Managed only with a user's access token (the gate refuses keys here): a key never makes keys,
//! and making one asks for the person's password again (docs/identity.md).

use actix_web::{web, HttpResponse};
use identity_domain::api_key::ApiKeyRecord;
use identity_domain::application::KeyRequest;
use serde::{Deserialize, Serialize};
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;

use super::actor;
use crate::app::AppState;
use crate::auth::Caller;
use crate::http::envelope::success_body;
use crate::http::idempotency::KeepInstead;
use crate::http::{created, list, no_content, ApiError, Json, PageQuery};

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/api-keys").route(web::post().to(create_key)).route(web::get().to(list_keys)))
        .service(web::resource("/api-keys/{id}").route(web::delete().to(revoke_key)));
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateApiKeyBody {
    #[schema(min_length = 1, max_length = 100, format = "non-blank-line")]
    pub name: String,
    /// `resource:action` names (wildcards allowed), each one the creator holds.
    #[schema(min_items = 1, max_items = 200)]
    pub permissions: Vec<String>,
    /// RFC 3339, in the future (years up to 2200); none: the key does not expire.
    #[serde(default, with = "shared_kernel::bounds::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<OffsetDateTime>,
    /// The creator's password, asked again (docs/identity.md): a stolen access token alone makes
    /// no key that outlives it. A wrong one counts toward the lock-out, as at login.
    #[schema(min_length = 1, format = Password)]
    pub current_password: String,
}

/// A key as lists show it: never the key itself.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyView {
    pub id: Uuid,
    pub user_id: Uuid,
    pub name: String,
    /// The key's first characters, to tell keys apart.
    pub prefix: String,
    pub permissions: Vec<String>,
    #[serde(with = "time::serde::rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: OffsetDateTime,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_used_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<OffsetDateTime>,
    #[serde(with = "time::serde::rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub revoked_at: Option<OffsetDateTime>,
}

impl From<ApiKeyRecord> for ApiKeyView {
    fn from(k: ApiKeyRecord) -> Self {
        Self {
            id: k.id,
            user_id: k.user_id,
            name: k.name,
            prefix: k.prefix,
            permissions: k.permissions,
            created_at: k.created_at,
            last_used_at: k.last_used_at,
            expires_at: k.expires_at,
            revoked_at: k.revoked_at,
        }
    }
}

/// The creation answer: the key, in full, this once.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedApiKeyView {
    #[serde(flatten)]
    pub view: ApiKeyView,
    /// `tly_…`: shown only here; Tally keeps only its hash.
    pub key: String,
}

#[utoipa::path(post, path = "/api/v1/identity/api-keys", tag = "identity", request_body = CreateApiKeyBody,
    responses((status = 201, body = CreatedApiKeyView, description = "The key, shown this once"),
              (status = 400, description = "VALIDATION_ERROR: a field is missing or invalid, current_password included (details name each problem)"),
              (status = 401, description = "INVALID_CREDENTIALS: current_password is wrong; UNAUTHORIZED / TOKEN_EXPIRED / TOKEN_REVOKED: no valid access token"),
              (status = 403, description = "FORBIDDEN: a permission the caller does not hold, or an API key as caller"),
              (status = 409, description = "TOO_MANY_API_KEYS: the caller holds 25 live keys"),
              (status = 423, description = "ACCOUNT_LOCKED: too many wrong passwords")),
    security(("bearer" = [])))]
pub async fn create_key(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<CreateApiKeyBody>,
) -> Result<HttpResponse, ApiError> {
    let request = KeyRequest {
        name: body.name,
        permissions: body.permissions,
        expires_at: body.expires_at,
        current_password: body.current_password,
    };
    let issued = state.identity.app.api_keys.create(&actor(&caller), request).await?;
    let (saved, secret) = (issued.record, issued.key);
    let view = ApiKeyView::from(saved);
    // A retry with the same Idempotency-Key learns the key was made, not the key itself.
    let kept = success_body(&view);
    let mut response = created(CreatedApiKeyView { view, key: secret });
    response.extensions_mut().insert(KeepInstead(kept));
    Ok(response)
}

#[utoipa::path(get, path = "/api/v1/identity/api-keys", tag = "identity", params(PageQuery),
    responses((status = 200, body = [ApiKeyView], description = "The caller's keys; an administrator's: everyone's")),
    security(("bearer" = [])))]
pub async fn list_keys(
    state: web::Data<AppState>,
    caller: Caller,
    page: web::Query<PageQuery>,
) -> Result<HttpResponse, ApiError> {
    let keys = state.identity.app.api_keys.list(&actor(&caller), page.request()?).await?;
    Ok(list(keys.map(ApiKeyView::from)))
}

#[utoipa::path(delete, path = "/api/v1/identity/api-keys/{id}", tag = "identity", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Revoked at once (revoking again changes nothing)"),
              (status = 403, description = "FORBIDDEN: an API key as caller, or a superadmin's key and the caller is not a superadmin"),
              (status = 404, description = "NOT_FOUND: no such key of the caller's")),
    security(("bearer" = [])))]
pub async fn revoke_key(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
) -> Result<HttpResponse, ApiError> {
    state.identity.app.api_keys.revoke(&actor(&caller), id.into_inner()).await?;
    Ok(no_content())
}
