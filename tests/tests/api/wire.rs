use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use tally_tests::{call, TestApp};

fn assert_error(status: StatusCode, body: &serde_json::Value, expected: StatusCode, code: &str) {
    assert_eq!(status, expected, "{body}");
    assert_eq!(body["status"], "error", "{body}");
    assert_eq!(body["error"]["code"], code, "{body}");
    assert!(body["error"]["message"].is_string(), "{body}");
}

#[actix_web::test]
async fn framework_errors_use_the_envelope() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let token = tally_tests::login(&app, tally_tests::ADMIN_EMAIL, tally_tests::ADMIN_PASSWORD).await;
    let (status, _, body) = call(&app, TestRequest::get().uri("/api/v1/nothing-here")).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, _, body) = call(&app, TestRequest::get().uri("/")).await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    let (status, _, body) = call(&app, TestRequest::post().uri("/api/v1/shared/countries")).await;
    assert_error(status, &body, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
    let (status, _, body) = call(&app, TestRequest::delete().uri("/health")).await;
    assert_error(status, &body, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
    let (status, _, body) = call(
        &app,
        TestRequest::get().uri("/api/v1/events/dead-letters/abc/retry").insert_header(tally_tests::bearer(&token)),
    )
    .await;
    assert_error(status, &body, StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
    t.stop().await;
}

#[actix_web::test]
async fn bad_parameters_are_400_with_details() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let token = tally_tests::login(&app, tally_tests::ADMIN_EMAIL, tally_tests::ADMIN_PASSWORD).await;
    for (uri, field) in [
        ("/api/v1/events?page=0", "page"),
        ("/api/v1/events?page_size=101", "page_size"),
        ("/api/v1/events?page_size=0", "page_size"),
        ("/api/v1/events?since=yesterday", "since"),
    ] {
        let (status, _, body) =
            call(&app, TestRequest::get().uri(uri).insert_header(tally_tests::bearer(&token))).await;
        assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
        assert!(body["error"]["details"][field].is_string(), "{uri}: {body}");
    }
    let (status, _, body) =
        call(&app, TestRequest::get().uri("/api/v1/events?page=two").insert_header(tally_tests::bearer(&token))).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let (status, _, body) = call(
        &app,
        TestRequest::get().uri("/api/v1/events?aggregate_id=nope").insert_header(tally_tests::bearer(&token)),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "INVALID_UUID");
    let (status, _, body) = call(
        &app,
        TestRequest::post()
            .uri("/api/v1/events/dead-letters/not-a-uuid/retry")
            .insert_header(tally_tests::bearer(&token)),
    )
    .await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "INVALID_UUID");
    // NUL cannot be stored as text: refused up front, never a 500.
    let (status, _, body) = call(&app, TestRequest::get().uri("/api/v1/shared/countries?search=a%00b")).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let nul_body = TestRequest::post()
        .uri("/api/v1/identity/users/register")
        .insert_header(("Content-Type", "application/json"))
        .set_payload(r#"{"email": "n@example.com", "name": "a\u0000b", "password": "password-1"}"#);
    let (status, _, body) = call(&app, nul_body).await;
    assert_error(status, &body, StatusCode::BAD_REQUEST, "VALIDATION_ERROR");
    let missing = shared_kernel::new_id();
    let (status, _, body) = call(
        &app,
        TestRequest::post()
            .uri(&format!("/api/v1/events/dead-letters/{missing}/retry"))
            .insert_header(tally_tests::bearer(&token)),
    )
    .await;
    assert_error(status, &body, StatusCode::NOT_FOUND, "NOT_FOUND");
    t.stop().await;
}

#[actix_web::test]
async fn request_ids_are_echoed_or_generated() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, headers, _) =
        call(&app, TestRequest::get().uri("/health").insert_header(("X-Request-ID", "trace-42"))).await;
    assert_eq!(headers.get("x-request-id").and_then(|v| v.to_str().ok()), Some("trace-42"));
    let (_, headers, _) = call(&app, TestRequest::get().uri("/nowhere")).await;
    let generated = headers.get("x-request-id").and_then(|v| v.to_str().ok()).expect("generated id");
    assert!(uuid::Uuid::parse_str(generated).is_ok());
    let (_, headers, _) =
        call(&app, TestRequest::get().uri("/health").insert_header(("X-Request-ID", "has spaces"))).await;
    let replaced = headers.get("x-request-id").and_then(|v| v.to_str().ok()).expect("id");
    assert_ne!(replaced, "has spaces");
    t.stop().await;
}

#[actix_web::test]
async fn cors_preflight_allows_the_decided_methods_and_headers() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let request = TestRequest::default()
        .method(actix_web::http::Method::OPTIONS)
        .uri("/api/v1/shared/countries")
        .insert_header(("Origin", "https://app.example"))
        .insert_header(("Access-Control-Request-Method", "PATCH"))
        .insert_header(("Access-Control-Request-Headers", "authorization, content-type, x-request-id"));
    let (status, headers, _) = call(&app, request).await;
    assert_eq!(status, StatusCode::OK);
    let methods =
        headers.get("access-control-allow-methods").and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    for method in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] {
        assert!(methods.contains(method), "{methods}");
    }
    let allowed =
        headers.get("access-control-allow-headers").and_then(|v| v.to_str().ok()).unwrap_or_default().to_lowercase();
    for header in ["authorization", "content-type", "x-request-id"] {
        assert!(allowed.contains(header), "{allowed}");
    }
    assert!(headers.get("access-control-allow-credentials").is_none(), "no credentials mode");
    t.stop().await;
}
