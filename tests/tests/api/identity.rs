//! Users and tokens through the HTTP API.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::json;
use tally_tests::{bearer, call, login, register, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};

fn post(uri: &str, body: serde_json::Value) -> TestRequest {
    TestRequest::post().uri(uri).set_json(body)
}

#[actix_web::test]
async fn register_login_me_and_token_shape() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let request = post(
        "/api/v1/identity/users/register",
        json!({"email": "  Ann@Example.com ", "name": "Ann", "password": "password-1"}),
    );
    let (status, _, body) = call(&app, request).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let data = &body["data"];
    assert_eq!(data["token_type"], "Bearer");
    assert!(data["access_token"].is_string() && data["refresh_token"].is_string());
    assert!(data["expires_at"].as_str().is_some_and(|t| t.ends_with('Z')));
    assert_eq!(data["user"]["email"], "ann@example.com");
    assert_eq!(data["user"]["status"], "active");
    assert!(!body.to_string().contains("password"), "no password material in responses");

    let token = login(&app, "ANN@example.com", "password-1").await;
    let (status, _, me) =
        call(&app, TestRequest::get().uri("/api/v1/identity/users/me").insert_header(bearer(&token))).await;
    assert_eq!(status, StatusCode::OK);
    for field in [
        "id",
        "email",
        "name",
        "status",
        "is_email_verified",
        "is_locked",
        "failed_login_attempts",
        "last_login_at",
        "created_at",
    ] {
        assert!(me["data"].get(field).is_some(), "me lacks {field}");
    }
    assert_eq!(me["data"]["is_email_verified"], false);
    assert!(me["data"]["last_login_at"].is_string());

    let (status, _, body) = call(
        &app,
        post(
            "/api/v1/identity/users/register",
            json!({"email": "ann@EXAMPLE.com", "name": "Ann 2", "password": "password-2"}),
        ),
    )
    .await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("EMAIL_ALREADY_EXISTS")));
    t.stop().await;
}

#[actix_web::test]
async fn registration_input_is_validated() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    for (body, code, field) in [
        (json!({"email": "not-an-email", "name": "A", "password": "password-1"}), "INVALID_EMAIL", "email"),
        (json!({"email": "a@example.com", "name": "A", "password": "short"}), "VALIDATION_ERROR", "password"),
        (json!({"email": "a@example.com", "name": "A", "password": "x".repeat(73)}), "VALIDATION_ERROR", "password"),
        (json!({"email": "a@example.com", "name": "  ", "password": "password-1"}), "VALIDATION_ERROR", "name"),
        (json!({"email": "a@example.com", "password": "password-1"}), "VALIDATION_ERROR", "name"),
        (json!({"email": 5, "name": "A", "password": "password-1"}), "VALIDATION_ERROR", "email"),
    ] {
        let (status, _, response) = call(&app, post("/api/v1/identity/users/register", body.clone())).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{body}: {response}");
        assert_eq!(response["error"]["code"], code, "{body}");
        assert!(response["error"]["details"][field].is_string(), "{body}: {response}");
    }
    let raw = TestRequest::post()
        .uri("/api/v1/identity/users/register")
        .insert_header(("Content-Type", "application/json"))
        .set_payload("{oops");
    let (status, _, body) = call(&app, raw).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")));
    let big = TestRequest::post()
        .uri("/api/v1/identity/users/register")
        .insert_header(("Content-Type", "application/json"))
        .set_payload(format!("{{\"name\": \"{}\"}}", "x".repeat(1_100_000)));
    let (status, _, body) = call(&app, big).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::PAYLOAD_TOO_LARGE, Some("PAYLOAD_TOO_LARGE")));
    t.stop().await;
}

#[actix_web::test]
async fn bad_credentials_and_forged_tokens_are_401() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    register(&app, "bob@example.com", "password-1").await;
    for body in [
        json!({"email": "bob@example.com", "password": "wrong-password"}),
        json!({"email": "nobody@example.com", "password": "password-1"}),
    ] {
        let (status, _, response) = call(&app, post("/api/v1/identity/users/login", body)).await;
        assert_eq!(
            (status, response["error"]["code"].as_str()),
            (StatusCode::UNAUTHORIZED, Some("INVALID_CREDENTIALS"))
        );
    }
    let (_, _, session) =
        call(&app, post("/api/v1/identity/users/login", json!({"email": "bob@example.com", "password": "password-1"})))
            .await;
    let refresh = session["data"]["refresh_token"].as_str().expect("refresh").to_owned();
    let access = session["data"]["access_token"].as_str().expect("access").to_owned();
    let me = |token: String| TestRequest::get().uri("/api/v1/identity/users/me").insert_header(bearer(&token));

    let wrong_secret = api::auth::TokenService::new("some-other-secret-some-other-secret!", "tally");
    let subject = api::auth::tokens::Subject {
        user_id: uuid::Uuid::now_v7(),
        email: "x@example.com",
        roles: vec!["admin".into()],
        token_version: 0,
        family: uuid::Uuid::now_v7(),
    };
    let forged = wrong_secret.issue_pair(&subject).expect("issue").access_token;
    // alg none: header {"alg":"none"} with the real payload and no signature.
    let payload = access.split('.').nth(1).expect("payload");
    let alg_none = format!("eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.{payload}.");
    let mut parts: Vec<&str> = access.split('.').collect();
    let tampered_payload = format!("{}A", parts[1]);
    parts[1] = &tampered_payload;
    let tampered = parts.join(".");
    for (label, token) in [
        ("wrong secret", forged),
        ("alg none", alg_none),
        ("tampered", tampered),
        ("refresh as access", refresh.clone()),
        ("garbage", "abc".into()),
    ] {
        let (status, _, body) = call(&app, me(token)).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (StatusCode::UNAUTHORIZED, Some("UNAUTHORIZED")),
            "{label}"
        );
    }
    let (status, _, body) = call(&app, TestRequest::get().uri("/api/v1/identity/users/me")).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("UNAUTHORIZED")));

    // Expired: signed correctly, but exp in the past.
    let service = api::auth::TokenService::new(tally_tests::app::TEST_JWT_SECRET, "tally");
    let expired = service.issue_expired_for_tests(&subject);
    let (status, _, body) = call(&app, me(expired)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("TOKEN_EXPIRED")));

    // An access token where a refresh token is expected.
    let (status, _, _) = call(&app, post("/api/v1/identity/auth/refresh", json!({"refresh_token": access}))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    t.stop().await;
}

#[actix_web::test]
async fn refresh_rotates_and_revoke_revokes() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    register(&app, "cy@example.com", "password-1").await;
    let (_, _, session) =
        call(&app, post("/api/v1/identity/users/login", json!({"email": "cy@example.com", "password": "password-1"})))
            .await;
    let refresh = session["data"]["refresh_token"].as_str().expect("refresh").to_owned();
    let (status, _, pair) = call(&app, post("/api/v1/identity/auth/refresh", json!({"refresh_token": refresh}))).await;
    assert_eq!(status, StatusCode::OK, "{pair}");
    for field in ["access_token", "refresh_token", "expires_at", "token_type"] {
        assert!(pair["data"][field].is_string(), "{field}");
    }
    let (status, _, body) = call(&app, post("/api/v1/identity/auth/refresh", json!({"refresh_token": refresh}))).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")),
        "a used refresh token"
    );

    // Reusing a spent refresh token ended its family, the new pair included.
    let rotated = pair["data"]["access_token"].as_str().expect("access").to_owned();
    let (status, _, body) =
        call(&app, TestRequest::get().uri("/api/v1/identity/users/me").insert_header(bearer(&rotated))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")));

    let access = login(&app, "cy@example.com", "password-1").await;
    let (status, _, _) =
        call(&app, post("/api/v1/identity/auth/revoke", json!({"token": access})).insert_header(bearer(&access))).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, body) =
        call(&app, TestRequest::get().uri("/api/v1/identity/users/me").insert_header(bearer(&access))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")));

    // Someone else's token: only an admin may revoke it.
    let (_, dee) = register(&app, "dee@example.com", "password-1").await;
    let eve = login(&app, "cy@example.com", "password-1").await;
    let (status, _, body) =
        call(&app, post("/api/v1/identity/auth/revoke", json!({"token": dee})).insert_header(bearer(&eve))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("FORBIDDEN")));
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (status, _, _) =
        call(&app, post("/api/v1/identity/auth/revoke", json!({"token": dee})).insert_header(bearer(&admin))).await;
    assert_eq!(status, StatusCode::OK);
    t.stop().await;
}

#[actix_web::test]
async fn lock_out_holds_under_concurrent_failures() {
    let options =
        TestOptions::default().with_env("LOGIN_MAX_FAILED_ATTEMPTS", "3").with_env("LOGIN_LOCK_DURATION", "1h");
    let t = TestApp::start_with(options).await;
    let app = init_service(build_app(t.state.clone())).await;
    let (user_id, _) = register(&app, "lock@example.com", "password-1").await;
    let attempts = (0..12).map(|_| {
        call(
            &app,
            post("/api/v1/identity/users/login", json!({"email": "lock@example.com", "password": "wrong-password"})),
        )
    });
    let results = futures_util::future::join_all(attempts).await;
    let invalid = results.iter().filter(|(s, _, _)| *s == StatusCode::UNAUTHORIZED).count();
    let locked =
        results.iter().filter(|(s, _, b)| *s == StatusCode::LOCKED && b["error"]["code"] == "ACCOUNT_LOCKED").count();
    assert_eq!(invalid, 3, "exactly the allowed failures are counted");
    assert_eq!(locked, 9);
    let (status, _, body) = call(
        &app,
        post("/api/v1/identity/users/login", json!({"email": "lock@example.com", "password": "password-1"})),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::LOCKED, Some("ACCOUNT_LOCKED")),
        "even the right password"
    );

    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (status, _, body) =
        call(&app, TestRequest::get().uri(&format!("/api/v1/identity/users/{user_id}")).insert_header(bearer(&admin)))
            .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (body["data"]["is_locked"].as_bool(), body["data"]["failed_login_attempts"].as_i64()),
        (Some(true), Some(3))
    );
    let (status, _, body) = call(
        &app,
        TestRequest::post().uri(&format!("/api/v1/identity/users/{user_id}/unlock")).insert_header(bearer(&admin)),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(
        (body["data"]["is_locked"].as_bool(), body["data"]["failed_login_attempts"].as_i64()),
        (Some(false), Some(0))
    );
    login(&app, "lock@example.com", "password-1").await;
    t.stop().await;
}

#[actix_web::test]
async fn suspension_ban_and_password_change_end_sessions() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (user_id, token) = register(&app, "sam@example.com", "password-1").await;
    let me = |token: &str| TestRequest::get().uri("/api/v1/identity/users/me").insert_header(bearer(token));
    let admin_put = |path: String| TestRequest::put().uri(&path).insert_header(bearer(&admin));

    // Non-admins get 403 on admin endpoints.
    for request in [
        TestRequest::get().uri("/api/v1/identity/users"),
        TestRequest::put().uri(&format!("/api/v1/identity/users/{user_id}/suspend")),
        TestRequest::post().uri(&format!("/api/v1/identity/users/{user_id}/unlock")),
        TestRequest::get().uri("/api/v1/events"),
    ] {
        let (status, _, body) = call(&app, request.insert_header(bearer(&token))).await;
        assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("FORBIDDEN")));
    }
    let (status, _, body) =
        call(&app, admin_put(format!("/api/v1/identity/users/{user_id}/suspend")).set_json(json!({"reason": "audit"})))
            .await;
    assert_eq!((status, body["data"]["status"].as_str()), (StatusCode::OK, Some("suspended")), "{body}");
    let (status, _, _) = call(&app, me(&token)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "a suspended user's token stops at once");
    let (status, _, body) =
        call(&app, post("/api/v1/identity/users/login", json!({"email": "sam@example.com", "password": "password-1"})))
            .await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("ACCOUNT_SUSPENDED")));
    let (status, _, body) = call(&app, admin_put(format!("/api/v1/identity/users/{user_id}/suspend"))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::CONFLICT, Some("INVALID_STATUS_TRANSITION")));

    let patch =
        TestRequest::patch().uri(&format!("/api/v1/identity/users/{user_id}/status")).insert_header(bearer(&admin));
    let (status, _, body) = call(&app, patch.set_json(json!({"status": "active"}))).await;
    assert_eq!((status, body["data"]["status"].as_str()), (StatusCode::OK, Some("active")), "{body}");
    let token = login(&app, "sam@example.com", "password-1").await;

    let change = TestRequest::put().uri("/api/v1/identity/users/me/password").insert_header(bearer(&token));
    let (status, _, body) =
        call(&app, change.set_json(json!({"current_password": "wrong-one", "new_password": "password-2"}))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("INVALID_CREDENTIALS")));
    let change = TestRequest::put().uri("/api/v1/identity/users/me/password").insert_header(bearer(&token));
    let (status, _, body) =
        call(&app, change.set_json(json!({"current_password": "password-1", "new_password": "password-2"}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(body["data"]["message"].is_string());
    let (status, _, body) = call(&app, me(&token)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")));
    let token = login(&app, "sam@example.com", "password-2").await;

    let (status, _, _) = call(&app, admin_put(format!("/api/v1/identity/users/{user_id}/ban"))).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, _) = call(&app, me(&token)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let (status, _, body) =
        call(&app, post("/api/v1/identity/users/login", json!({"email": "sam@example.com", "password": "password-2"})))
            .await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("ACCOUNT_BANNED")));
    let patch =
        TestRequest::patch().uri(&format!("/api/v1/identity/users/{user_id}/status")).insert_header(bearer(&admin));
    let (status, _, body) = call(&app, patch.set_json(json!({"status": "active"}))).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::CONFLICT, Some("INVALID_STATUS_TRANSITION")),
        "banned is permanent"
    );

    // Admin list with filters.
    let (status, _, body) =
        call(&app, TestRequest::get().uri("/api/v1/identity/users?status=banned").insert_header(bearer(&admin))).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(body["pagination"]["total"], 1);
    assert_eq!(body["data"][0]["email"], "sam@example.com");
    let (_, _, body) =
        call(&app, TestRequest::get().uri("/api/v1/identity/users?search=SAM@").insert_header(bearer(&admin))).await;
    assert_eq!(body["pagination"]["total"], 1);
    let (status, _, body) =
        call(&app, TestRequest::get().uri("/api/v1/identity/users?status=gone").insert_header(bearer(&admin))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")));
    let (status, _, body) = call(
        &app,
        TestRequest::get()
            .uri(&format!("/api/v1/identity/users/{}", uuid::Uuid::now_v7()))
            .insert_header(bearer(&admin)),
    )
    .await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::NOT_FOUND, Some("USER_NOT_FOUND")));

    // Events went through the outbox.
    let (_, _, events) = call(
        &app,
        TestRequest::get().uri(&format!("/api/v1/events?aggregate_id={user_id}")).insert_header(bearer(&admin)),
    )
    .await;
    let names: Vec<&str> =
        events["data"].as_array().expect("events").iter().filter_map(|e| e["name"].as_str()).collect();
    for name in [
        "identity.user.registered",
        "identity.user.suspended",
        "identity.user.activated",
        "identity.user.password_changed",
        "identity.user.banned",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    t.stop().await;
}

#[actix_web::test]
async fn users_read_themselves_and_privileged_roles_read_anyone() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (ann, ann_token) = register(&app, "ann@example.com", "password-1").await;
    let (bob, _) = register(&app, "bob@example.com", "password-1").await;
    let get = |id: uuid::Uuid, token: &str| {
        TestRequest::get().uri(&format!("/api/v1/identity/users/{id}")).insert_header(bearer(token))
    };
    assert_eq!(call(&app, get(ann, &ann_token)).await.0, StatusCode::OK);
    let (status, _, body) = call(&app, get(bob, &ann_token)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("FORBIDDEN")));
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(call(&app, get(bob, &admin)).await.0, StatusCode::OK);
    let (status, _, body) =
        call(&app, TestRequest::get().uri("/api/v1/identity/users/not-a-uuid").insert_header(bearer(&admin))).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::BAD_REQUEST, Some("INVALID_UUID")));
    t.stop().await;
}
