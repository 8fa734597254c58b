//! Every request's body is read whole, within the request deadline, before anything takes a
//! database connection, transaction or lock for it (docs/bounded-work.md).
//!
//! The keyed (`Idempotency-Key`) and conditional (`If-Match`) writes run their handler inside a
//! transaction; had the body been read there, a client that sends its head and never its body would
//! hold a connection and a row lock for as long as its socket stays open, and forty such clients
//! would take every connection. Here the body is read first, into memory (at most
//! [`MAX_BODY_BYTES`]), by `REQUEST_TIMEOUT` from the head's arrival, and handed on: the layers
//! inside see a body that is already whole. A body that does not arrive in time is answered 408
//! `REQUEST_TIMEOUT` and its connection closed; actix-web itself times out a head that does not
//! arrive (`client_request_timeout`, set to the same duration by `serve`).

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::http::header::{CONTENT_LENGTH, TRANSFER_ENCODING};
use actix_web::http::{ConnectionType, Method, StatusCode};
use actix_web::middleware::Next;
use actix_web::web::{Bytes, BytesMut, Data};
use actix_web::HttpMessage;
use futures_util::StreamExt;

use super::extract::{payload_too_large, MAX_BODY_BYTES};
use super::ApiError;
use crate::app::AppState;

/// Put in a request's extensions once its body has been read: the body itself (empty when the head
/// announced none), for the layers inside that need it whole (the idempotency fingerprint).
#[derive(Debug, Clone)]
pub struct WholeBody(pub Bytes);

pub fn request_timeout() -> ApiError {
    ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "REQUEST_TIMEOUT",
        "the request's body did not arrive in time; send it whole and promptly",
    )
}

/// Whether the head announces a body: a length above zero, or chunks.
fn announces_body(req: &ServiceRequest) -> bool {
    if matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS) {
        return false;
    }
    let headers = req.headers();
    let length = headers.get(CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.trim().parse::<u64>().ok());
    length.is_some_and(|n| n > 0) || headers.contains_key(TRANSFER_ENCODING)
}

/// Middleware: reads the body whole before the layers inside run.
pub async fn read_first(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    // An import upload streams its body to storage itself, up to its own limit.
    if crate::auth::route_access::streams_body(&req) {
        return next.call(req).await.map(ServiceResponse::map_into_boxed_body);
    }
    if !announces_body(&req) {
        req.extensions_mut().insert(WholeBody(Bytes::new()));
        return next.call(req).await.map(ServiceResponse::map_into_boxed_body);
    }
    let timeout = req.app_data::<Data<AppState>>().map_or(DEFAULT_TIMEOUT, |state| state.settings.request_timeout);
    let deadline = tokio::time::Instant::now() + timeout;
    let mut payload = req.take_payload();
    let mut body = BytesMut::new();
    let failure = loop {
        match tokio::time::timeout_at(deadline, payload.next()).await {
            Err(_) => break Some(request_timeout()),
            Ok(None) => break None,
            Ok(Some(Err(_))) => break Some(ApiError::field("body", "the request body could not be read")),
            Ok(Some(Ok(chunk))) if body.len() + chunk.len() > MAX_BODY_BYTES => break Some(payload_too_large()),
            Ok(Some(Ok(chunk))) => body.extend_from_slice(&chunk),
        }
    };
    if let Some(error) = failure {
        // What is left of the body is not read: the connection cannot carry another request.
        let mut response = error.to_response(error.status);
        response.head_mut().set_connection_type(ConnectionType::Close);
        return Ok(req.into_response(response));
    }
    let body = body.freeze();
    req.extensions_mut().insert(WholeBody(body.clone()));
    req.set_payload(Payload::from(body));
    next.call(req).await.map(ServiceResponse::map_into_boxed_body)
}

/// The deadline when no state is configured (never in `serve`).
const DEFAULT_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
