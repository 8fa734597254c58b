//! Floods that cost the server nothing it needs elsewhere (docs/bounded-work.md): health checks, made-up
//! API keys, error lists a client can inflate, unknown methods, endless searches.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use futures_util::future::join_all;
use serde_json::json;
use tally_tests::{bearer, call, login, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};

fn from(ip: &str) -> std::net::SocketAddr {
    format!("{ip}:40000").parse().unwrap_or_else(|_| format!("[{ip}]:40000").parse().expect("an address"))
}

#[actix_web::test]
async fn health_answers_from_one_shared_probe_without_a_request_connection() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    // Every request connection (eight in tests) is taken.
    let held = join_all((0..8).map(|_| t.state.pool.get())).await;
    assert!(held.iter().all(Result::is_ok));
    let answers = join_all((0..50).map(|_| call(&app, TestRequest::get().uri("/health")))).await;
    let stamps: std::collections::HashSet<String> =
        answers.iter().map(|(_, _, body)| body["checks"]["database"]["timestamp"].to_string()).collect();
    for (status, _, body) in &answers {
        assert_eq!(*status, StatusCode::OK, "{body}");
        assert_eq!(body["checks"]["database"]["status"], "healthy", "{body}");
    }
    assert_eq!(stamps.len(), 1, "fifty callers, one probe: {stamps:?}");
    let (status, _, db) = call(&app, TestRequest::get().uri("/health/db")).await;
    assert_eq!((status, db["status"].as_str()), (StatusCode::OK, Some("healthy")));
    drop(held);
    t.stop().await;
}

#[actix_web::test]
async fn remote_health_checks_cost_the_public_limit_and_local_ones_nothing() {
    let t = TestApp::start_with(TestOptions::default().with_env("RATE_LIMIT_ENABLED", "true")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, remote, _) = call(&app, TestRequest::get().uri("/health").peer_addr(from("203.0.113.7"))).await;
    assert_eq!(remote.get("x-ratelimit-limit").and_then(|v| v.to_str().ok()), Some("1000"));
    let (status, local, _) = call(&app, TestRequest::get().uri("/health").peer_addr(from("127.0.0.1"))).await;
    assert_eq!(status, StatusCode::OK);
    assert!(local.get("x-ratelimit-limit").is_none(), "a local probe is not limited");
    t.stop().await;
}

#[actix_web::test]
async fn made_up_api_keys_are_charged_to_their_sender_before_any_look_up() {
    let t = TestApp::start_with(TestOptions::default().with_env("RATE_LIMIT_ENABLED", "true")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let attempt = |n: usize| {
        let key = format!("tly_{:064x}", n + 1);
        TestRequest::get()
            .uri("/api/v1/customer-mgmt/customers")
            .peer_addr(from("203.0.113.9"))
            .insert_header(("Authorization", format!("Bearer {key}")))
    };
    for n in 0..100 {
        assert_eq!(call(&app, attempt(n)).await.0, StatusCode::UNAUTHORIZED, "key {n}");
    }
    // Each key was new, so each had a fresh bucket of its own; the sender's address did not. With the
    // keys' table locked, a look-up would wait: the answer must come before any.
    let holder = super::Holder::start(&t.db.url, "LOCK TABLE api_keys IN ACCESS EXCLUSIVE MODE").await;
    let answered = tokio::time::timeout(std::time::Duration::from_secs(5), call(&app, attempt(100))).await;
    holder.release().await;
    let (status, headers, body) = answered.expect("refused before any look-up");
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::TOO_MANY_REQUESTS, Some("RATE_LIMIT_EXCEEDED")));
    assert!(headers.contains_key("retry-after"));
    t.stop().await;
}

#[actix_web::test]
async fn ipv6_clients_share_a_bucket_per_64() {
    let t = TestApp::start_with(TestOptions::default().with_env("RATE_LIMIT_ENABLED", "true")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let login_from = |ip: &str| {
        TestRequest::post()
            .uri("/api/v1/identity/users/login")
            .peer_addr(from(ip))
            .set_json(json!({"email": "nobody@example.com", "password": "password-1"}))
    };
    assert_eq!(call(&app, login_from("2001:db8:1:2::1")).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(call(&app, login_from("2001:db8:1:2::abcd")).await.0, StatusCode::TOO_MANY_REQUESTS, "same /64");
    assert_eq!(call(&app, login_from("2001:db8:1:3::1")).await.0, StatusCode::UNAUTHORIZED, "another /64");
    t.stop().await;
}

/// A customer body whose `tags` holds `count` integers (each one a problem), as sent.
fn tags_bomb(admin: &str, count: usize) -> TestRequest {
    let items = vec!["1"; count].join(",");
    let body = format!(r#"{{"name": "Bomb", "email": "bomb@example.com", "tags": [{items}]}}"#);
    assert!(body.len() < 1024 * 1024);
    TestRequest::post()
        .uri("/api/v1/customer-mgmt/customers")
        .insert_header(bearer(admin))
        .insert_header(("Content-Type", "application/json"))
        .set_payload(body)
}

/// The answer's status and its body, with the body's size in bytes.
async fn sized<S, B>(app: &S, request: TestRequest) -> (StatusCode, usize, serde_json::Value)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let response = actix_web::test::call_service(app, request.to_request()).await;
    let status = response.status();
    let bytes = actix_web::test::read_body(response).await;
    (status, bytes.len(), serde_json::from_slice(&bytes).expect("json"))
}

#[actix_web::test]
async fn error_list_bombs_get_short_answers() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    // Half a million items: refused by their number, before any item is looked at.
    let (status, size, answer) = sized(&app, tags_bomb(&admin, 500_000)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(size < 16 * 1024, "{size} bytes");
    assert_eq!(answer["error"]["details"]["tags"], "must have at most 1000 items", "{answer}");
    // Nine hundred bad items: fifty named, the rest counted.
    let (status, size, answer) = sized(&app, tags_bomb(&admin, 900)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(size < 16 * 1024, "{size} bytes");
    let details = answer["error"]["details"].as_object().expect("details");
    assert_eq!(details.len(), 51, "fifty problems and `_more`: {answer}");
    assert!(details["_more"].as_str().is_some_and(|more| more.ends_with("more problems not listed")), "{answer}");
    t.stop().await;
}

#[actix_web::test]
async fn unknown_methods_make_no_metrics_series_and_searches_are_bounded() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let made_up = actix_web::http::Method::from_bytes(b"FROBNICATE").expect("a method");
    let _ = call(&app, TestRequest::default().method(made_up).uri("/api/v1/customer-mgmt/customers")).await;
    let metrics = t.state.metrics.render();
    assert!(!metrics.contains("FROBNICATE"), "a made-up method is no label");
    assert!(metrics.contains("method=\"OTHER\""), "it is counted as OTHER");
    for list in ["/api/v1/customer-mgmt/customers", "/api/v1/warehouse/products", "/api/v1/identity/users"] {
        let long = format!("{list}?search={}", "a".repeat(201));
        let (status, _, body) = call(&app, TestRequest::get().uri(&long).insert_header(bearer(&admin))).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")),
            "{list}"
        );
        let fine = format!("{list}?search={}", "a".repeat(200));
        assert_eq!(call(&app, TestRequest::get().uri(&fine).insert_header(bearer(&admin))).await.0, StatusCode::OK);
    }
    t.stop().await;
}
