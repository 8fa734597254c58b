//! Rate limits chosen from the route actix matched, and client addresses
//! that a client cannot choose.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::json;
use tally_tests::{call, TestApp, TestOptions};

/// Spellings of the login path that the router sends to the login handler.
const LOGIN_SPELLINGS: [&str; 8] = [
    "/api/v1/identity/users/login",
    "/%61pi/v1/identity/users/login",
    "/api/v1/identity/users/%6Cogin",
    "/api/v1/identity/users/%6cogin",
    "/api/%76%31/identity/users/login",
    "/%61%70%69/v1/%69dentity/%75sers/%6c%6f%67%69%6e",
    "/api/v1/identity/%75sers/login",
    "/api/v1/identity/users/logi%6E",
];

fn login(uri: &str, ip: &str) -> TestRequest {
    TestRequest::post()
        .uri(uri)
        .peer_addr(format!("{ip}:40000").parse().expect("addr"))
        .set_json(json!({"email": "nobody@example.com", "password": "password-1"}))
}

fn limited() -> TestOptions {
    TestOptions::default().with_env("RATE_LIMIT_ENABLED", "true")
}

#[actix_web::test]
async fn every_spelling_of_the_login_path_is_limited_as_login() {
    let t = TestApp::start_with(limited()).await;
    let app = init_service(build_app(t.state.clone())).await;
    for (n, spelling) in LOGIN_SPELLINGS.iter().enumerate() {
        // Each spelling from an address of its own: it reaches login and is limited as login.
        let ip = format!("203.0.113.{}", n + 10);
        let (status, headers, body) = call(&app, login(spelling, &ip)).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{spelling} reaches the login handler: {body}");
        assert_eq!(headers.get("x-ratelimit-limit").and_then(|v| v.to_str().ok()), Some("5"), "{spelling}");
        let (status, _, body) = call(&app, login(spelling, &ip)).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS, "{spelling}: {body}");
    }
    // Eight logins from one address, each spelled differently, share one bucket.
    let mut statuses = Vec::new();
    for spelling in LOGIN_SPELLINGS {
        statuses.push(call(&app, login(spelling, "198.51.100.99")).await.0);
    }
    assert_eq!(statuses[0], StatusCode::UNAUTHORIZED);
    assert!(statuses[1..].iter().all(|s| *s == StatusCode::TOO_MANY_REQUESTS), "{statuses:?}");
    t.stop().await;
}

#[actix_web::test]
async fn unknown_routes_count_against_the_public_limit() {
    let t = TestApp::start_with(limited()).await;
    let app = init_service(build_app(t.state.clone())).await;
    for uri in ["/api/v1/no-such-thing", "/wp-login.php", "/api/v1/identity/users/login/extra"] {
        let request = TestRequest::get().uri(uri).peer_addr("192.0.2.1:4000".parse().expect("addr"));
        let (status, headers, _) = call(&app, request).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{uri}");
        assert_eq!(headers.get("x-ratelimit-limit").and_then(|v| v.to_str().ok()), Some("1000"), "{uri}");
    }
    // A known path with the wrong method is not a way around the limit either.
    let request =
        TestRequest::get().uri("/api/v1/identity/users/login").peer_addr("192.0.2.1:4000".parse().expect("a"));
    let (status, headers, _) = call(&app, request).await;
    assert_eq!(status, StatusCode::METHOD_NOT_ALLOWED);
    assert!(headers.get("x-ratelimit-limit").is_some());
    t.stop().await;
}

#[actix_web::test]
async fn a_forged_left_most_forwarded_for_does_not_escape_the_limit() {
    let options = limited().with_env("TRUSTED_PROXIES", "10.0.0.0/8");
    let t = TestApp::start_with(options).await;
    let app = init_service(build_app(t.state.clone())).await;
    let via_proxy = |chain: &str| {
        login("/api/v1/identity/users/login", "10.1.1.1").insert_header(("X-Forwarded-For", chain.to_owned()))
    };
    assert_eq!(call(&app, via_proxy("198.51.100.1")).await.0, StatusCode::UNAUTHORIZED);
    // The client prepends whatever it likes; the proxy appended the real address last.
    for forged in ["1.2.3.4, 198.51.100.1", "5.6.7.8, 9.9.9.9, 198.51.100.1", "garbage, 198.51.100.1"] {
        assert_eq!(call(&app, via_proxy(forged)).await.0, StatusCode::TOO_MANY_REQUESTS, "{forged}");
    }
    // A proxy that adds its own header line instead of appending: every line counts, in order.
    let two_lines = login("/api/v1/identity/users/login", "10.1.1.1")
        .append_header(("X-Forwarded-For", "9.9.9.9"))
        .append_header(("X-Forwarded-For", "198.51.100.1"));
    assert_eq!(call(&app, two_lines).await.0, StatusCode::TOO_MANY_REQUESTS);
    // A chain of trusted proxies is skipped from the right.
    assert_eq!(call(&app, via_proxy("7.7.7.7, 198.51.100.1, 10.2.2.2")).await.0, StatusCode::TOO_MANY_REQUESTS);
    // An untrusted peer's header is ignored: the peer is the client.
    let direct =
        login("/api/v1/identity/users/login", "203.0.113.200").insert_header(("X-Forwarded-For", "198.51.100.77"));
    assert_eq!(call(&app, direct).await.0, StatusCode::UNAUTHORIZED);
    let direct =
        login("/api/v1/identity/users/login", "203.0.113.200").insert_header(("X-Forwarded-For", "198.51.100.78"));
    assert_eq!(call(&app, direct).await.0, StatusCode::TOO_MANY_REQUESTS);
    t.stop().await;
}
