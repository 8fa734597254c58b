//! The one gate in front of every handler: finds the route actix will match
//! (from the path as the router sees it, after percent-decoding, so no
//! spelling of a path escapes its policy), applies that route's rate limit,
//! then its guard from `auth::route_access`, before any body is read.

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::middleware::Next;
use actix_web::{web, HttpMessage};
use identity_domain::api_key::KEY_PREFIX;

use super::rate_limit::{Decision, Policy};
use super::ApiError;
use crate::app::AppState;
use crate::auth::api_keys::limiter_identity;
use crate::auth::caller::{authenticate, bearer};
use crate::auth::route_access::{access_for, allowed_methods, Access};
use crate::auth::Caller;

/// The pattern of the resource the router will pick, e.g.
/// `/api/v1/customer-mgmt/customers/{id}`; `None` for an unknown route.
/// Found once per request (walking the resource map runs a regex per
/// route, the costliest step of a request) and kept in its extensions for
/// every later reader: the outer `observe` middleware finds it, the gate
/// reads it.
pub fn matched_pattern(req: &ServiceRequest) -> Option<String> {
    if let Some(MatchedRoute(pattern)) = req.extensions().get::<MatchedRoute>() {
        return pattern.clone();
    }
    // `match_info()` holds the path re-quoted the way the router matches it
    // (`/%61pi` is `/api`), unlike the raw `req.path()`.
    let pattern = req.resource_map().match_pattern(req.match_info().as_str());
    req.extensions_mut().insert(MatchedRoute(pattern.clone()));
    pattern
}

/// The matched pattern of this request, found once (see [`matched_pattern`]).
#[derive(Clone)]
struct MatchedRoute(Option<String>);

/// Which limit applies: the route's own, the public one for anything
/// unknown, none for operations endpoints. (CORS preflights are answered by
/// the CORS middleware in front of this gate.)
fn limit_policy(access: Option<Access>) -> Option<Policy> {
    match access {
        Some(access) => access.limit(),
        None => Some(Policy::Public),
    }
}

fn rate_headers(decision: &Decision) -> [(&'static str, String); 3] {
    [
        ("x-ratelimit-limit", decision.limit.to_string()),
        ("x-ratelimit-remaining", decision.remaining.to_string()),
        ("x-ratelimit-reset", decision.reset.to_string()),
    ]
}

fn too_many(decision: &Decision) -> ApiError {
    let wait = decision.retry_after.max(1);
    let mut error = ApiError::new(
        StatusCode::TOO_MANY_REQUESTS,
        "RATE_LIMIT_EXCEEDED",
        format!("too many requests; try again in {wait} seconds"),
    )
    .with_header("retry-after", wait.to_string());
    for (name, value) in rate_headers(decision) {
        error = error.with_header(name, value);
    }
    error
}

/// Authenticates the caller by the request's bearer credential and checks the route's guard.
async fn authorize(state: &AppState, token: &Result<String, ApiError>, access: Access) -> Result<Caller, ApiError> {
    let token = token.as_ref().map_err(Clone::clone)?;
    let caller = authenticate(state, token).await?;
    // A key acts for a service: only on operations a permission guards, never on a person's own
    // business (password, sessions, profile, key management), never on administrator-only ones.
    if caller.api_key().is_some() && !matches!(access, Access::Permission(..)) {
        return Err(ApiError::forbidden(
            "API keys may call only operations guarded by a permission; this one needs a user's access token",
        ));
    }
    match access {
        Access::Admin => caller.require_admin()?,
        Access::Permission(resource, action) => caller.require(resource, action)?,
        Access::Token | Access::Operations | Access::Public | Access::Credentials(_) => {}
    }
    Ok(caller)
}

/// The client address the limits count (`X-Forwarded-For` only from trusted proxies).
fn client_address(state: &AppState, req: &ServiceRequest) -> String {
    // Every `X-Forwarded-For` line, in order: a proxy may add a line of its own.
    let forwarded = req.headers().get_all("x-forwarded-for").filter_map(|v| v.to_str().ok()).collect::<Vec<_>>();
    let forwarded = (!forwarded.is_empty()).then(|| forwarded.join(","));
    let peer = req.peer_addr().map(|a| a.ip());
    state.identity.trusted_proxies.client_ip(peer, forwarded.as_deref())
}

/// Whether the request comes from this machine itself (a probe, a local scraper), not through a proxy.
fn from_loopback(state: &AppState, req: &ServiceRequest) -> bool {
    let peer = req.peer_addr().map(|a| a.ip().to_canonical());
    let forwarded = req.headers().contains_key("x-forwarded-for");
    peer.is_some_and(|ip| ip.is_loopback() && !(forwarded && state.identity.trusted_proxies.trusts(&ip)))
}

/// Middleware: rate limit, then guard, then the handler. A request with an API key is first counted
/// against its sender's address at the authenticated limit, so made-up keys cost their sender before
/// any look-up (docs/bounded-work.md), then limited per key (a bucket named by the key's hash).
pub async fn enforce(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        return next.call(req).await.map(ServiceResponse::map_into_left_body);
    };
    let pattern = matched_pattern(&req);
    let access = pattern.as_deref().and_then(|pattern| access_for(req.method().as_str(), pattern));
    let guarded = access.filter(|a| a.needs_token());
    // Read once: it names the rate-limit bucket of an API key, then authenticates.
    let token = guarded.map(|_| bearer(req.request()));
    let api_key = token.as_ref().and_then(|t| t.as_ref().ok()).filter(|t| t.starts_with(KEY_PREFIX));
    let policy = match access {
        // Health, metrics and the docs cost a remote caller the public limit (docs/bounded-work.md).
        Some(Access::Operations) if !from_loopback(&state, &req) => Some(Policy::Public),
        _ => limit_policy(access),
    };
    let limiter = state.identity.rate_limiter.as_ref();
    let mut decision = None;
    if let (Some(policy), Some(limiter)) = (policy, limiter) {
        let address = client_address(&state, &req);
        let mut outcome = limiter.check(policy, &address).await;
        if let (Some(key), true) = (&api_key, outcome.allowed) {
            outcome = limiter.check(policy, &limiter_identity(key)).await;
        }
        if !outcome.allowed {
            let error = too_many(&outcome);
            return Ok(req.into_response(error.to_response(error.status)).map_into_right_body());
        }
        decision = Some(outcome);
    }
    let refusal = if let (Some(pattern), None) = (pattern.as_deref(), access) {
        // Fail closed: a known path is reachable only by the methods the table lists.
        Some(
            ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED", "method not allowed")
                .with_header("allow", allowed_methods(pattern)),
        )
    } else if let (Some(access), Some(token)) = (guarded, &token) {
        match authorize(&state, token, access).await {
            Ok(caller) => {
                req.extensions_mut().insert(caller);
                None
            }
            Err(error) => Some(error),
        }
    } else {
        None
    };
    if let Some(mut error) = refusal {
        for (name, value) in decision.as_ref().map(rate_headers).into_iter().flatten() {
            error = error.with_header(name, value);
        }
        return Ok(req.into_response(error.to_response(error.status)).map_into_right_body());
    }
    let mut response = next.call(req).await?;
    if let Some(decision) = &decision {
        for (name, value) in rate_headers(decision) {
            if let Ok(value) = HeaderValue::from_str(&value) {
                response.headers_mut().insert(HeaderName::from_static(name), value);
            }
        }
    }
    Ok(response.map_into_left_body())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_routes_count_as_public() {
        assert_eq!(limit_policy(None), Some(Policy::Public));
        assert_eq!(limit_policy(Some(Access::Credentials(Policy::Login))), Some(Policy::Login));
        assert_eq!(limit_policy(Some(Access::Operations)), None);
        assert_eq!(limit_policy(Some(Access::Permission("customers", "read"))), Some(Policy::Authenticated));
    }
}
