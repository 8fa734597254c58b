//! Request id, tracing span, metrics and the envelope for framework errors.

use std::time::Instant;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue, CONTENT_TYPE};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage};
use tracing::Instrument;

use super::ApiError;
use crate::app::AppState;

pub const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The request id, available to handlers through request extensions.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// A caller's id is kept when it is short and plain; otherwise a new one is made.
fn accept_request_id(raw: Option<&HeaderValue>) -> String {
    raw.and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty() && v.len() <= 128)
        .filter(|v| v.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b':')))
        .map(str::to_owned)
        .unwrap_or_else(|| shared_kernel::new_id().to_string())
}

/// The method as metrics and logs name it: a method outside HTTP's own is `OTHER`, so a client
/// cannot make a new metrics series per made-up method (docs/bounded-work.md).
fn method_label(method: &actix_web::http::Method) -> String {
    const KNOWN: [&str; 9] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"];
    let name = method.as_str();
    if KNOWN.contains(&name) { name } else { "OTHER" }.to_owned()
}

/// Wraps every request: id, span, timing, metrics, access log.
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let started = Instant::now();
    let request_id = accept_request_id(req.headers().get(&REQUEST_ID));
    req.extensions_mut().insert(RequestId(request_id.clone()));
    let method = method_label(req.method());
    let route = super::route_policy::matched_pattern(&req).unwrap_or_else(|| "unmatched".to_owned());
    let state = req.app_data::<web::Data<AppState>>().cloned();
    let span = tracing::info_span!("request", request_id = %request_id, method = %method, route = %route);
    let path = req.path().to_owned();

    // PostgreSQL text cannot hold NUL; refuse it here instead of failing later.
    if req.uri().path_and_query().is_some_and(|target| target.as_str().contains("%00")) {
        let error = ApiError::validation("the URL must not contain NUL characters");
        let response = req.into_response(error.to_response(error.status)).map_into_right_body();
        return Ok(response);
    }
    let result = next.call(req).instrument(span.clone()).await;
    let mut response = match result {
        Ok(response) => envelope_framework_errors(response),
        Err(error) => {
            // Errors that escaped a handler: render them in our envelope.
            let status = error.as_response_error().status_code();
            let api = framework_error(status);
            let http = api.to_response(status);
            return Err(actix_web::error::InternalError::from_response(error, http).into());
        }
    };
    let status = response.status();
    response
        .headers_mut()
        .insert(REQUEST_ID, HeaderValue::from_str(&request_id).unwrap_or(HeaderValue::from_static("invalid")));
    let elapsed = started.elapsed();
    if let Some(state) = state {
        state.metrics.observe_request(&method, &route, status.as_u16(), elapsed.as_secs_f64());
    }
    span.in_scope(|| {
        tracing::info!(status = status.as_u16(), path = %path, duration_ms = elapsed.as_millis() as u64, "request handled");
    });
    Ok(response)
}

/// actix answers some failures itself (no route, wrong method, extractor
/// errors of other crates) with a plain-text body; give them our envelope.
fn envelope_framework_errors<B: MessageBody + 'static>(response: ServiceResponse<B>) -> ServiceResponse<EitherBody<B>> {
    let status = response.status();
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !(status.is_client_error() || status.is_server_error()) || is_json {
        return response.map_into_left_body();
    }
    let (request, original) = response.into_parts();
    let mut replacement = framework_error(status).to_response(status);
    for (name, value) in original.headers() {
        if name != CONTENT_TYPE && name != actix_web::http::header::CONTENT_LENGTH {
            replacement.headers_mut().insert(name.clone(), value.clone());
        }
    }
    ServiceResponse::new(request, replacement).map_into_right_body()
}

fn framework_error(status: StatusCode) -> ApiError {
    match status {
        StatusCode::NOT_FOUND => ApiError::not_found("no such route"),
        StatusCode::METHOD_NOT_ALLOWED => {
            ApiError::new(status, "METHOD_NOT_ALLOWED", "this method is not allowed on this route")
        }
        StatusCode::PAYLOAD_TOO_LARGE => super::extract::payload_too_large(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ApiError::validation("Content-Type must be application/json"),
        s if s.is_server_error() => ApiError::internal(format!("framework answered {s}")),
        s => ApiError::new(s, "BAD_REQUEST", s.canonical_reason().unwrap_or("bad request")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_methods_are_labelled_other() {
        assert_eq!(method_label(&actix_web::http::Method::PATCH), "PATCH");
        let made_up = actix_web::http::Method::from_bytes(b"FROBNICATE1").expect("a token");
        assert_eq!(method_label(&made_up), "OTHER");
    }

    #[test]
    fn request_ids_are_kept_or_made() {
        assert_eq!(accept_request_id(Some(&HeaderValue::from_static("abc-123"))), "abc-123");
        let made = accept_request_id(Some(&HeaderValue::from_static("bad id with spaces")));
        assert!(uuid::Uuid::parse_str(&made).is_ok());
        assert!(uuid::Uuid::parse_str(&accept_request_id(None)).is_ok());
    }
}
