//! Outbound webhooks (docs/webhooks.md): `/webhooks` endpoints (secret shown on creation and
//! rotation only), their delivery log, test pings and manual retries. Permission resource
//! `webhooks`. Deliveries themselves are made and sent by `webhooks`, only of
//! what the endpoint's creator may read (docs/webhooks.md): whoever creates or replaces an endpoint
//! is recorded as its creator, with the API key they used.

pub mod deliveries;
pub mod views;

use actix_web::{web, HttpResponse};
use postgres_toolkit::DbPool;
use serde::Deserialize;
use time::OffsetDateTime;
use utoipa::ToSchema;
use uuid::Uuid;
use webhooks::{AddressPolicy, Creator, EndpointInput, PgWebhookStore, SecretKeeper, WebhookError, WorkerSignal};

use crate::app::AppState;
use crate::auth::Caller;
use crate::config::{ConfigError, Settings};
use crate::http::conditional::{created_tagged, ok_tagged};
use crate::http::envelope::success_body;
use crate::http::idempotency::KeepInstead;
use crate::http::{list, no_content, ApiError, Json, PageQuery};
use deliveries::{get_delivery, list_deliveries, retry_delivery, send_test};
use views::{EndpointView, EndpointWithSecretView};

/// After a rotation, the previous secret keeps signing beside the new one this long, so
/// receivers can switch without losing a delivery.
pub const ROTATION_GRACE: time::Duration = time::Duration::hours(24);

/// The webhook adapters the routes use.
#[derive(Clone)]
pub struct WebhookServices {
    pub store: PgWebhookStore,
    pub secrets: SecretKeeper,
    pub policy: AddressPolicy,
    /// Wakes this instance's delivery worker after a test ping or a retry.
    pub worker: WorkerSignal,
}

impl WebhookServices {
    pub fn new(settings: &Settings, pool: &DbPool, worker: WorkerSignal) -> Result<Self, ConfigError> {
        let key = settings.webhooks.server_key(settings.jwt_secret.as_deref())?;
        Ok(Self {
            store: PgWebhookStore::new(pool.clone()),
            secrets: SecretKeeper::new(&key),
            policy: AddressPolicy { allow_private: settings.webhooks.allow_private },
            worker,
        })
    }
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/webhooks").route(web::post().to(create_endpoint)).route(web::get().to(list_endpoints)))
        .service(
            web::resource("/webhooks/{id}")
                .route(web::get().to(get_endpoint))
                .route(web::put().to(update_endpoint))
                .route(web::delete().to(delete_endpoint)),
        )
        .service(web::resource("/webhooks/{id}/rotate-secret").route(web::post().to(rotate_secret)))
        .service(web::resource("/webhooks/{id}/test").route(web::post().to(send_test)))
        .service(web::resource("/webhooks/{id}/deliveries").route(web::get().to(list_deliveries)))
        .service(web::resource("/webhooks/{id}/deliveries/{delivery_id}").route(web::get().to(get_delivery)))
        .service(web::resource("/webhooks/{id}/deliveries/{delivery_id}/retry").route(web::post().to(retry_delivery)));
}

/// The one mapping of webhook refusals.
pub(crate) fn webhook_error(error: WebhookError) -> ApiError {
    match error {
        WebhookError::NotFound => ApiError::not_found("no such webhook endpoint or delivery"),
        WebhookError::Disabled => ApiError::conflict("WEBHOOK_DISABLED", error.to_string()),
        WebhookError::InProgress => ApiError::conflict("DELIVERY_IN_PROGRESS", error.to_string()),
        WebhookError::Storage(storage) => storage.into(),
    }
}

#[derive(Debug, Deserialize, ToSchema)]
pub struct EndpointBody {
    /// `https://…`; `http` and private addresses only with `WEBHOOK_ALLOW_PRIVATE=true`.
    #[schema(min_length = 1, max_length = 2048)]
    pub url: String,
    /// Event names, `*` standing for any run of characters: `order.*`, `*.created`, `*`.
    #[schema(min_items = 1, max_items = 50)]
    pub events: Vec<String>,
    #[schema(max_length = 500)]
    pub description: Option<String>,
    /// Default `true`.
    pub enabled: Option<bool>,
}

impl EndpointBody {
    fn checked(&self, policy: AddressPolicy) -> Result<EndpointInput, ApiError> {
        EndpointInput::validate(
            &self.url,
            &self.events,
            self.description.as_deref(),
            self.enabled.unwrap_or(true),
            policy,
        )
        .map_err(|problems| ApiError::validation("the webhook endpoint is not valid").with_details(problems))
    }
}

/// The caller as an endpoint's creator: the user, and the key when they came with one.
fn creator(caller: &Caller) -> Creator {
    Creator { user: caller.user_id, key: caller.api_key() }
}

fn new_salt() -> Result<[u8; 32], ApiError> {
    SecretKeeper::new_salt().map_err(|e| ApiError::internal(format!("no randomness for a secret: {e}")))
}

/// An answer with the secret, of which a retry with the same `Idempotency-Key` keeps only the
/// endpoint: the secret is shown once.
fn with_secret(mut response: HttpResponse, view: &EndpointView) -> HttpResponse {
    response.extensions_mut().insert(KeepInstead(success_body(view)));
    response
}

#[utoipa::path(post, path = "/api/v1/webhooks", tag = "webhooks", request_body = EndpointBody,
    responses((status = 201, body = EndpointWithSecretView, description = "The endpoint and its secret, shown this once"),
              (status = 400, description = "VALIDATION_ERROR naming url, events or description")),
    security(("bearer" = [])))]
pub async fn create_endpoint(
    state: web::Data<AppState>,
    caller: Caller,
    Json(body): Json<EndpointBody>,
) -> Result<HttpResponse, ApiError> {
    let services = &state.webhooks;
    let input = body.checked(services.policy)?;
    let salt = new_salt()?;
    let id = shared_kernel::new_id();
    let new = webhooks::store::NewEndpoint {
        id,
        input: &input,
        created_by: creator(&caller),
        salt: &salt,
        at: OffsetDateTime::now_utc(),
    };
    let endpoint = services.store.create(new).await.map_err(webhook_error)?;
    let secret = services.secrets.secret(id, &salt).reveal();
    let view = EndpointView::from(endpoint.clone());
    let response = created_tagged::<EndpointWithSecretView, _>(views::Revealed { endpoint, secret });
    Ok(with_secret(response, &view))
}

#[utoipa::path(get, path = "/api/v1/webhooks", tag = "webhooks", params(PageQuery),
    responses((status = 200, body = [EndpointView], description = "Endpoints, newest first")),
    security(("bearer" = [])))]
pub async fn list_endpoints(state: web::Data<AppState>, page: web::Query<PageQuery>) -> Result<HttpResponse, ApiError> {
    let endpoints = state.webhooks.store.list(page.request()?).await.map_err(webhook_error)?;
    Ok(list(endpoints.map(EndpointView::from)))
}

#[utoipa::path(get, path = "/api/v1/webhooks/{id}", tag = "webhooks", params(("id" = Uuid, Path)),
    responses((status = 200, body = EndpointView), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn get_endpoint(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let endpoint = state.webhooks.store.get(id.into_inner()).await.map_err(webhook_error)?;
    Ok(ok_tagged::<EndpointView, _>(endpoint))
}

#[utoipa::path(put, path = "/api/v1/webhooks/{id}", tag = "webhooks", params(("id" = Uuid, Path)),
    request_body = EndpointBody,
    responses((status = 200, body = EndpointView,
                description = "Replaced; enabling clears the failure clock. The caller becomes its creator: from now on \
                it hears only what they may read"),
              (status = 400, description = "VALIDATION_ERROR"), (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn update_endpoint(
    state: web::Data<AppState>,
    caller: Caller,
    id: web::Path<Uuid>,
    Json(body): Json<EndpointBody>,
) -> Result<HttpResponse, ApiError> {
    let input = body.checked(state.webhooks.policy)?;
    let store = &state.webhooks.store;
    let endpoint = store
        .update(id.into_inner(), &input, creator(&caller), OffsetDateTime::now_utc())
        .await
        .map_err(webhook_error)?;
    Ok(ok_tagged::<EndpointView, _>(endpoint))
}

#[utoipa::path(delete, path = "/api/v1/webhooks/{id}", tag = "webhooks", params(("id" = Uuid, Path)),
    responses((status = 204, description = "Deleted with its delivery log; nothing more is sent"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn delete_endpoint(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    if state.webhooks.store.delete(id.into_inner()).await.map_err(webhook_error)? {
        Ok(no_content())
    } else {
        Err(webhook_error(WebhookError::NotFound))
    }
}

#[utoipa::path(post, path = "/api/v1/webhooks/{id}/rotate-secret", tag = "webhooks", params(("id" = Uuid, Path)),
    responses((status = 200, body = EndpointWithSecretView,
                description = "The new secret, shown this once; the previous one also signs for 24 hours"),
              (status = 404, description = "NOT_FOUND")),
    security(("bearer" = [])))]
pub async fn rotate_secret(state: web::Data<AppState>, id: web::Path<Uuid>) -> Result<HttpResponse, ApiError> {
    let services = &state.webhooks;
    let id = id.into_inner();
    let salt = new_salt()?;
    let now = OffsetDateTime::now_utc();
    let endpoint = services.store.rotate_secret(id, &salt, now + ROTATION_GRACE, now).await.map_err(webhook_error)?;
    let secret = services.secrets.secret(id, &salt).reveal();
    let view = EndpointView::from(endpoint.clone());
    let response = ok_tagged::<EndpointWithSecretView, _>(views::Revealed { endpoint, secret });
    Ok(with_secret(response, &view))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_have_their_own_codes() {
        let status = |e| webhook_error(e).status;
        assert_eq!(status(WebhookError::NotFound), actix_web::http::StatusCode::NOT_FOUND);
        assert_eq!(webhook_error(WebhookError::Disabled).code, "WEBHOOK_DISABLED");
        assert_eq!(webhook_error(WebhookError::InProgress).code, "DELIVERY_IN_PROGRESS");
    }
}
