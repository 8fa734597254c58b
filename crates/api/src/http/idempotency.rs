//! `Idempotency-Key` on every POST (docs/retries.md), as one middleware.
//!
//! A keyed POST runs inside a request transaction (`postgres_toolkit::request_tx`):
//! the key is claimed (an advisory lock, then a lookup), the handler runs with
//! that transaction as every repository's connection, and its answer is saved
//! before the one commit, so a crash after the commit still replays the right
//! answer. 5xx and 429 answers roll back and are not kept: the retry runs again.

use actix_web::body::{to_bytes, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::{Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::Data;
use actix_web::{HttpMessage, HttpResponse, ResponseError};
use postgres_toolkit::idempotency::{claim, save, wait_for_key, Claim, StoredResponse};
use postgres_toolkit::request_tx::RequestTransaction;
use sha2::{Digest, Sha256};
use shared_kernel::StorageError;

use super::whole_body::WholeBody;
use super::ApiError;
use crate::app::AppState;
use crate::auth::Caller;

pub const IDEMPOTENCY_KEY: HeaderName = HeaderName::from_static("idempotency-key");
pub const IDEMPOTENT_REPLAYED: HeaderName = HeaderName::from_static("idempotent-replayed");

/// Put in an answer's extensions by a handler whose answer shows a secret once (a new API key):
/// a keyed request keeps this body instead, so the secret is never stored and a replay says
/// what was made without showing it again.
pub struct KeepInstead(pub Vec<u8>);

/// The headers a replay repeats; the rest (request id, rate-limit counters) are the retry's own.
const KEPT_HEADERS: [&str; 4] = ["content-type", "location", "etag", "allow"];

/// The key: 1..=255 visible ASCII characters. The IETF draft's structured-field
/// form (`"abc"`) is accepted too and names the same key as `abc`.
pub fn parse_key(raw: &HeaderValue) -> Result<String, ApiError> {
    let text = raw.to_str().unwrap_or("");
    let key = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')).unwrap_or(text);
    if key.is_empty() || key.len() > 255 || !key.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ApiError::field(
            "Idempotency-Key",
            "the Idempotency-Key header must be 1 to 255 visible ASCII characters",
        ));
    }
    Ok(key.to_owned())
}

pub fn key_in_use() -> ApiError {
    ApiError::conflict(
        "IDEMPOTENCY_KEY_IN_USE",
        "a request with this Idempotency-Key is still being processed; retry shortly",
    )
}

pub fn key_reused() -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "IDEMPOTENCY_KEY_REUSED",
        "this Idempotency-Key was used for a different request (method, path or body)",
    )
}

/// Whose keys these are: the API key's, the authenticated user's, or the public endpoints' shared space.
fn scope_of(req: &ServiceRequest) -> String {
    match req.extensions().get::<Caller>() {
        Some(caller) => match caller.api_key() {
            Some(key) => format!("key:{key}"),
            None => format!("user:{}", caller.user_id),
        },
        None => "public".to_owned(),
    }
}

/// What identifies "the same request": an HMAC-SHA256 of method, path with query, and body, keyed
/// with a secret of the server's (`JWT_SECRET`). Hashed here, so a body never travels to the
/// database; keyed, so a stored hash of a body holding a password (`current_password` on a new API
/// key) is no offline test of guesses for whoever reads the table.
fn fingerprint(req: &ServiceRequest, body: &[u8], secret: &[u8]) -> [u8; 32] {
    use hmac::{Hmac, Mac};
    let target = req.uri().path_and_query().map_or_else(|| req.path(), |p| p.as_str());
    let key = Sha256::new().chain_update(b"tally idempotency fingerprint\n").chain_update(secret).finalize();
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&key) else { return [0; 32] };
    mac.update(req.method().as_str().as_bytes());
    mac.update(b" ");
    mac.update(target.as_bytes());
    mac.update(b"\n");
    mac.update(body);
    mac.finalize().into_bytes().into()
}

fn replay(stored: StoredResponse) -> HttpResponse {
    let status = StatusCode::from_u16(stored.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = HttpResponse::build(status);
    for (name, value) in &stored.headers {
        if let (Ok(name), Ok(value)) = (HeaderName::try_from(name.as_str()), HeaderValue::from_str(value)) {
            response.insert_header((name, value));
        }
    }
    response.insert_header((IDEMPOTENT_REPLAYED, HeaderValue::from_static("true")));
    response.body(stored.body)
}

/// Middleware: keyed POSTs are claimed, run and saved in one transaction; everything else passes.
pub async fn replay_or_run(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let header = req.headers().get(&IDEMPOTENCY_KEY).cloned();
    let state = req.app_data::<Data<AppState>>().cloned();
    // Register, login and refresh ignore the key: their answers are credentials, never kept. An
    // import upload too: its body streams to storage, never whole to fingerprint, and each is a job.
    let replayable = header.is_some()
        && req.method() == Method::POST
        && !crate::auth::route_access::answers_with_credentials(&req)
        && !crate::auth::route_access::streams_body(&req);
    let (Some(header), Some(state), true) = (header, state, replayable) else {
        return next.call(req).await.map(ServiceResponse::map_into_boxed_body);
    };
    // Boxed: a keyed request's state (its transaction, the kept answer) would otherwise sit in the
    // future of every request in flight, keyed or not (docs/adr/0018-memory.md).
    Box::pin(keyed(req, next, header, state)).await
}

/// A keyed POST: claimed, run and saved in one transaction.
async fn keyed(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
    header: HeaderValue,
    state: Data<AppState>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let key = match parse_key(&header) {
        Ok(key) => key,
        Err(error) => return Ok(req.error_response(error)),
    };
    // Read whole by `http::whole_body`, which runs first.
    let body = req.extensions().get::<WholeBody>().map(|body| body.0.clone()).unwrap_or_default();
    let scope = scope_of(&req);
    let secret = state.settings.jwt_secret.as_deref().unwrap_or_default().as_bytes();
    let request_hash = fingerprint(&req, &body, secret);
    let tx = match RequestTransaction::begin(&state.pool).await {
        Ok(tx) => tx,
        Err(error) => return Ok(req.error_response(ApiError::from(error))),
    };
    let claimed = {
        let mut conn = tx.connection().await;
        claim(&mut conn, &scope, &key, &request_hash).await
    };
    let refusal = match claimed {
        Ok(Claim::Fresh) => Ok(()),
        Ok(Claim::Replay(stored)) => Err(replay(stored)),
        Ok(Claim::InUse) => Err(key_in_use().error_response()),
        Ok(Claim::Reused) => Err(key_reused().error_response()),
        Err(error) => Err(ApiError::from(StorageError::from(error)).error_response()),
    };
    if let Err(response) = refusal {
        tx.rollback().await;
        return Ok(req.into_response(response));
    }
    let response = match tx.run(next.call(req)).await {
        Ok(response) => response,
        Err(error) => {
            tx.rollback().await;
            return Err(error);
        }
    };
    let status = response.status();
    if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS || status.is_informational() {
        tx.rollback().await;
        return Ok(response.map_into_boxed_body());
    }
    let (http_request, response) = response.into_parts();
    let (response, body) = response.into_parts();
    let body = match to_bytes(body).await {
        Ok(body) => body,
        Err(_) => {
            tx.rollback().await;
            let error = ApiError::internal("could not read a response body to keep it");
            return Ok(ServiceResponse::new(http_request, error.error_response()));
        }
    };
    let stored = StoredResponse {
        status: status.as_u16(),
        headers: KEPT_HEADERS
            .iter()
            .filter_map(|name| {
                let value = response.headers().get(*name)?.to_str().ok()?;
                Some(((*name).to_owned(), value.to_owned()))
            })
            .collect(),
        body: match response.extensions().get::<KeepInstead>() {
            Some(KeepInstead(kept)) => kept.clone(),
            None => body.to_vec(),
        },
    };
    let saved = save_and_commit(&state, tx, &scope, &key, &request_hash, &stored).await;
    let response = match saved {
        Ok(()) => response.set_body(BoxBody::new(body)),
        Err(error) => error.error_response(),
    };
    Ok(ServiceResponse::new(http_request, response))
}

/// Commits the answer with the change. A success that cannot be kept is undone and answered
/// 500, so the client's retry runs it again. A refusal (4xx) whose transaction a failed
/// statement aborted (so nothing changed) is kept in a transaction of its own, after waiting
/// for the key's lock: a retry that claimed the key meanwhile keeps its own answer instead.
async fn save_and_commit(
    state: &AppState,
    tx: RequestTransaction,
    scope: &str,
    key: &str,
    request_hash: &[u8],
    stored: &StoredResponse,
) -> Result<(), ApiError> {
    match keep_answer(tx, scope, key, request_hash, stored, false).await {
        Ok(()) => {
            // Events written in the transaction are visible only now.
            state.outbox.notify();
            Ok(())
        }
        Err(cause) if stored.status < 400 => Err(ApiError::internal(format!("could not keep an answer: {cause}"))),
        Err(cause) => {
            tracing::debug!(%cause, "keeping a refusal in a transaction of its own");
            let alone = match RequestTransaction::begin(&state.pool).await {
                Ok(tx) => keep_answer(tx, scope, key, request_hash, stored, true).await,
                Err(error) => Err(error.to_string()),
            };
            if let Err(cause) = alone {
                tracing::warn!(%cause, "could not keep a refusal; a retry will run again");
            }
            Ok(())
        }
    }
}

/// Saves the answer in `tx` and commits; any failure rolls back. In the claim's own transaction
/// (`outside_claim` false) no other answer can be kept, so finding one is a failure; outside it,
/// after waiting for the key's lock, an answer a retry kept meanwhile simply stands.
async fn keep_answer(
    tx: RequestTransaction,
    scope: &str,
    key: &str,
    request_hash: &[u8],
    stored: &StoredResponse,
    outside_claim: bool,
) -> Result<(), String> {
    let saved = {
        let mut conn = tx.connection().await;
        let locked = if outside_claim { wait_for_key(&mut conn, scope, key).await } else { Ok(()) };
        match locked {
            Ok(()) => save(&mut conn, scope, key, request_hash, stored).await,
            Err(error) => Err(error),
        }
    };
    match saved {
        Ok(written) if written || outside_claim => tx.commit().await.map_err(|e| e.to_string()),
        Ok(_) => {
            tx.rollback().await;
            Err("another answer is kept under a freshly claimed key".to_owned())
        }
        Err(error) => {
            tx.rollback().await;
            Err(error.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_visible_ascii_up_to_255() {
        let key = |text: &str| parse_key(&HeaderValue::from_str(text).expect("header"));
        assert_eq!(key("abc-123").expect("valid"), "abc-123");
        assert_eq!(key("\"abc-123\"").expect("quoted form"), "abc-123");
        assert_eq!(key(&"k".repeat(255)).expect("255").len(), 255);
        for bad in ["", "\"\"", "has space", &"k".repeat(256)] {
            let error = key(bad).expect_err(bad);
            assert_eq!((error.status, error.code), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR"), "{bad}");
        }
        let non_ascii = HeaderValue::from_bytes("clé".as_bytes()).expect("header");
        assert!(parse_key(&non_ascii).is_err());
    }
}
