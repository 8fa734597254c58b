//! Per-IP limits with their headers, in-process and shared through Redis.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::json;
use tally_tests::{call, redis_url, unique_prefix, TestApp, TestOptions};

fn login_from(ip: &str) -> TestRequest {
    TestRequest::post()
        .uri("/api/v1/identity/users/login")
        .peer_addr(format!("{ip}:40000").parse().expect("addr"))
        .set_json(json!({"email": "nobody@example.com", "password": "password-1"}))
}

#[actix_web::test]
async fn login_is_limited_per_ip_with_headers() {
    let t = TestApp::start_with(TestOptions::default().with_env("RATE_LIMIT_ENABLED", "true")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let (status, headers, _) = call(&app, login_from("203.0.113.1")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(headers.get("x-ratelimit-limit").and_then(|v| v.to_str().ok()), Some("5"));
    assert_eq!(headers.get("x-ratelimit-remaining").and_then(|v| v.to_str().ok()), Some("0"));
    let reset: u64 =
        headers.get("x-ratelimit-reset").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok()).expect("reset");
    assert!(reset > 1_700_000_000, "unix seconds");
    let (status, headers, body) = call(&app, login_from("203.0.113.1")).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("RATE_LIMIT_EXCEEDED")));
    let retry: u64 =
        headers.get("retry-after").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok()).expect("retry-after");
    assert!((1..=12).contains(&retry));
    assert!(headers.get("x-ratelimit-remaining").is_some());
    let (status, _, _) = call(&app, login_from("203.0.113.2")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "another IP has its own bucket");
    // Forwarded-for is ignored unless the peer is a trusted proxy.
    let spoofed = login_from("203.0.113.1").insert_header(("X-Forwarded-For", "198.51.100.50"));
    assert_eq!(call(&app, spoofed).await.0, StatusCode::TOO_MANY_REQUESTS);
    // Health is never limited.
    assert_eq!(call(&app, TestRequest::get().uri("/health")).await.0, StatusCode::OK);
    t.stop().await;
}

#[actix_web::test]
async fn trusted_proxies_forward_the_client_ip() {
    let options =
        TestOptions::default().with_env("RATE_LIMIT_ENABLED", "true").with_env("TRUSTED_PROXIES", "10.0.0.0/8");
    let t = TestApp::start_with(options).await;
    let app = init_service(build_app(t.state.clone())).await;
    let via_proxy =
        |client: &str| login_from("10.1.1.1").insert_header(("X-Forwarded-For", format!("{client}, 10.1.1.1")));
    assert_eq!(call(&app, via_proxy("198.51.100.1")).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(call(&app, via_proxy("198.51.100.1")).await.0, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(call(&app, via_proxy("198.51.100.2")).await.0, StatusCode::UNAUTHORIZED, "each client behind the proxy");
    t.stop().await;
}

#[actix_web::test]
async fn redis_limits_hold_across_two_instances() {
    let prefix = unique_prefix("ratelimit");
    let options = || {
        TestOptions::default()
            .with_env("RATE_LIMIT_ENABLED", "true")
            .with_env("REDIS_URL", redis_url())
            .with_env("REDIS_KEY_PREFIX", prefix.clone())
    };
    let first = TestApp::start_with(options()).await;
    let second = TestApp::start_with(options()).await;
    let app_a = init_service(build_app(first.state.clone())).await;
    let app_b = init_service(build_app(second.state.clone())).await;
    let register = |email: &str| {
        TestRequest::post()
            .uri("/api/v1/identity/users/register")
            .peer_addr("192.0.2.7:5555".parse().expect("addr"))
            .set_json(json!({"email": email, "name": "R", "password": "password-1"}))
    };
    assert_eq!(call(&app_a, register("r1@example.com")).await.0, StatusCode::CREATED);
    let (status, _, body) = call(&app_b, register("r2@example.com")).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::TOO_MANY_REQUESTS, Some("RATE_LIMIT_EXCEEDED")),
        "the second instance sees the first one's request"
    );
    first.stop().await;
    second.stop().await;
}
