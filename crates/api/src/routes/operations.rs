//! Operational endpoints: Prometheus metrics, for the operator only
//! (docs/identity.md): with `METRICS_TOKEN` set, `Authorization: Bearer
//! <METRICS_TOKEN>` is required; without it, only a loopback peer is served.

use std::net::IpAddr;

use actix_web::http::header::{HeaderMap, AUTHORIZATION};
use actix_web::{web, HttpRequest, HttpResponse};

use crate::app::AppState;
use crate::http::ApiError;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/metrics").route(web::get().to(metrics)));
}

/// Equal without an early exit: the time taken depends on the length of
/// `expected` only, never on where `given` first differs.
fn constant_time_eq(expected: &[u8], given: &[u8]) -> bool {
    let mut difference = expected.len() ^ given.len();
    for (i, byte) in expected.iter().enumerate() {
        difference |= usize::from(byte ^ given.get(i).copied().unwrap_or(0));
    }
    std::hint::black_box(difference) == 0
}

/// The token of an `Authorization: Bearer <token>` header, if there is one.
fn bearer_token(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(AUTHORIZATION)?.to_str().ok()?.trim();
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// A direct loopback peer (127.0.0.0/8, ::1, or IPv4-mapped loopback). A
/// missing peer is not loopback, and neither is a request a proxy relayed
/// (it names its origin in a forwarding header): a reverse proxy on the
/// same host would otherwise make every client look local.
fn is_local(peer: Option<IpAddr>, headers: &HeaderMap) -> bool {
    let relayed = ["forwarded", "x-forwarded-for", "x-real-ip"].iter().any(|name| headers.contains_key(*name));
    !relayed && peer.is_some_and(|ip| ip.to_canonical().is_loopback())
}

/// Who may read the metrics: `Ok` to serve, else the error to answer.
fn admit(token: Option<&str>, peer: Option<IpAddr>, headers: &HeaderMap) -> Result<(), ApiError> {
    match token {
        Some(expected) => {
            let given = bearer_token(headers).unwrap_or_default();
            if constant_time_eq(expected.as_bytes(), given.as_bytes()) {
                Ok(())
            } else {
                Err(ApiError::unauthorized("metrics need Authorization: Bearer <METRICS_TOKEN>")
                    .with_header("WWW-Authenticate", "Bearer realm=\"metrics\""))
            }
        }
        None if is_local(peer, headers) => Ok(()),
        None => Err(ApiError::forbidden("metrics are served to loopback peers only while METRICS_TOKEN is unset")),
    }
}

/// Gauges are read at scrape time, so they are never stale.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain"),
              (status = 401, description = "UNAUTHORIZED: METRICS_TOKEN is set and the Bearer token is missing or wrong"),
              (status = 403, description = "FORBIDDEN: METRICS_TOKEN is unset and the peer is not loopback")))]
pub async fn metrics(state: web::Data<AppState>, req: HttpRequest) -> Result<HttpResponse, ApiError> {
    admit(state.settings.metrics_token.as_deref(), req.peer_addr().map(|a| a.ip()), req.headers())?;
    let m = &state.metrics;
    for (name, pool) in [("requests", &state.pool), ("events", &state.event_pool)] {
        let status = pool.status();
        let gauge = |which: &str, value: usize| {
            m.pool_connections.with_label_values(&[name, which]).set(i64::try_from(value).unwrap_or(i64::MAX));
        };
        gauge("size", status.size);
        gauge("available", status.available);
        gauge("max", status.max_size);
        gauge("waiting", status.waiting);
    }
    m.bus_queue_depth.set(state.bus.queue_depth());
    match postgres_toolkit::events::log::outbox_lag_seconds(&state.pool).await {
        Ok(lag) => m.outbox_lag_ms.set((lag * 1000.0) as i64),
        Err(error) => tracing::warn!(%error, "could not read outbox lag"),
    }
    match state.dead_letters.count_open().await {
        Ok(count) => m.dead_letters.set(count),
        Err(error) => tracing::warn!(%error, "could not count dead letters"),
    }
    match state.webhooks.store.backlog().await {
        Ok(backlog) => {
            m.webhook_deliveries_pending.set(backlog.pending_deliveries);
            m.webhook_endpoints_failing.set(backlog.failing_endpoints);
        }
        Err(error) => tracing::warn!(%error, "could not count webhook deliveries"),
    }
    Ok(HttpResponse::Ok().content_type("text/plain; version=0.0.4").body(m.render()))
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::{HeaderName, HeaderValue};

    use super::*;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(HeaderName::from_static(name), HeaderValue::from_str(value).expect("header"));
        }
        map
    }

    fn ip(raw: &str) -> Option<IpAddr> {
        Some(raw.parse().expect("ip"))
    }

    #[test]
    fn tokens_compare_whole() {
        assert!(constant_time_eq(b"s3cret-token", b"s3cret-token"));
        for wrong in [&b""[..], b"s3cret-toke", b"s3cret-tokem", b"s3cret-token ", b"S3cret-token"] {
            assert!(!constant_time_eq(b"s3cret-token", wrong), "{wrong:?}");
        }
        assert!(constant_time_eq(b"", b""));
    }

    #[test]
    fn without_a_token_only_direct_loopback_peers_are_served() {
        let none = headers(&[]);
        for local in ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"] {
            assert!(admit(None, ip(local), &none).is_ok(), "{local}");
        }
        for remote in ["10.0.0.1", "192.168.1.2", "::ffff:10.0.0.1", "2001:db8::1", "0.0.0.0"] {
            let error = admit(None, ip(remote), &none).expect_err(remote);
            assert_eq!((error.status.as_u16(), error.code), (403, "FORBIDDEN"), "{remote}");
        }
        assert_eq!(admit(None, None, &none).expect_err("no peer").status.as_u16(), 403);
        let relayed = headers(&[("x-forwarded-for", "203.0.113.9")]);
        assert_eq!(admit(None, ip("127.0.0.1"), &relayed).expect_err("relayed").status.as_u16(), 403);
        let forwarded = headers(&[("forwarded", "for=203.0.113.9")]);
        assert_eq!(admit(None, ip("::1"), &forwarded).expect_err("relayed").status.as_u16(), 403);
    }

    #[test]
    fn with_a_token_the_bearer_token_is_required_from_everyone() {
        let token = Some("s3cret-token");
        for good in ["Bearer s3cret-token", "bearer s3cret-token", "  Bearer   s3cret-token "] {
            assert!(admit(token, ip("203.0.113.9"), &headers(&[("authorization", good)])).is_ok(), "{good}");
        }
        for bad in ["Bearer wrong", "Bearer s3cret-token2", "Basic s3cret-token", "s3cret-token", "Bearer "] {
            let error = admit(token, ip("127.0.0.1"), &headers(&[("authorization", bad)])).expect_err(bad);
            assert_eq!((error.status.as_u16(), error.code), (401, "UNAUTHORIZED"), "{bad}");
            assert!(error.headers.iter().any(|(name, _)| *name == "WWW-Authenticate"));
        }
        let missing = admit(token, ip("127.0.0.1"), &headers(&[])).expect_err("missing");
        assert_eq!(missing.status.as_u16(), 401, "a configured token is required from loopback too");
    }
}
