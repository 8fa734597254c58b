//! Tokens an attacker holds: forged, confused, reused, revoked, across restarts.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{bearer, call, register, TestApp, TestOptions};

fn post(uri: &str, body: Value) -> TestRequest {
    TestRequest::post().uri(uri).set_json(body)
}

fn me(token: &str) -> TestRequest {
    TestRequest::get().uri("/api/v1/identity/users/me").insert_header(bearer(token))
}

fn refresh(token: &str) -> TestRequest {
    post("/api/v1/identity/auth/refresh", json!({ "refresh_token": token }))
}

fn session_of(body: &Value) -> (String, String) {
    let data = &body["data"];
    (
        data["access_token"].as_str().expect("access").to_owned(),
        data["refresh_token"].as_str().expect("refresh").to_owned(),
    )
}

fn code(body: &Value) -> Option<&str> {
    body["error"]["code"].as_str()
}

#[actix_web::test]
async fn a_reused_refresh_token_ends_its_whole_family() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    register(&app, "fam@example.com", "password-1").await;
    let login = || post("/api/v1/identity/users/login", json!({"email": "fam@example.com", "password": "password-1"}));
    let (_, first_refresh) = session_of(&call(&app, login()).await.2);
    let (other_access, other_refresh) = session_of(&call(&app, login()).await.2);

    let (status, _, body) = call(&app, refresh(&first_refresh)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (second_access, second_refresh) = session_of(&body);
    assert_eq!(call(&app, me(&second_access)).await.0, StatusCode::OK);

    // The stolen copy of the first refresh token is presented again.
    let (status, _, body) = call(&app, refresh(&first_refresh)).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")));
    // Everything descended from that login is gone, access tokens included...
    let (status, _, body) = call(&app, refresh(&second_refresh)).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")));
    let (status, _, body) = call(&app, me(&second_access)).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")));
    // ...while the other login's session lives on.
    assert_eq!(call(&app, me(&other_access)).await.0, StatusCode::OK);
    assert_eq!(call(&app, refresh(&other_refresh)).await.0, StatusCode::OK);
    t.stop().await;
}

#[actix_web::test]
async fn concurrent_refreshes_with_one_token_let_exactly_one_through() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    register(&app, "race@example.com", "password-1").await;
    let login = post("/api/v1/identity/users/login", json!({"email": "race@example.com", "password": "password-1"}));
    let (_, token) = session_of(&call(&app, login).await.2);
    let attempts = (0..10).map(|_| call(&app, refresh(&token)));
    let statuses: Vec<StatusCode> = futures_util::future::join_all(attempts).await.into_iter().map(|r| r.0).collect();
    assert_eq!(statuses.iter().filter(|s| **s == StatusCode::OK).count(), 1, "{statuses:?}");
    assert!(statuses.iter().all(|s| [StatusCode::OK, StatusCode::UNAUTHORIZED].contains(s)), "{statuses:?}");
    t.stop().await;
}

#[actix_web::test]
async fn access_and_refresh_tokens_are_not_interchangeable() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, access) = register(&app, "kinds@example.com", "password-1").await;
    let login = post("/api/v1/identity/users/login", json!({"email": "kinds@example.com", "password": "password-1"}));
    let (_, refresh_token) = session_of(&call(&app, login).await.2);
    assert_eq!(call(&app, me(&refresh_token)).await.0, StatusCode::UNAUTHORIZED, "refresh token as bearer");
    assert_eq!(call(&app, refresh(&access)).await.0, StatusCode::UNAUTHORIZED, "access token to refresh");
    // A refresh token cannot reach a business route either.
    let customers = TestRequest::get().uri("/api/v1/customer-mgmt/customers").insert_header(bearer(&refresh_token));
    assert_eq!(call(&app, customers).await.0, StatusCode::UNAUTHORIZED);
    t.stop().await;
}

#[actix_web::test]
async fn forged_tokens_are_refused_everywhere() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, access) = register(&app, "forge@example.com", "password-1").await;
    let payload = access.split('.').nth(1).expect("payload").to_owned();
    // alg none, with an upgraded payload and no signature.
    let none_header = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0";
    let wrong_key = api::auth::TokenService::new("an-attacker-chosen-secret-of-32-bytes!!", "tally");
    let subject = api::auth::tokens::Subject {
        user_id: uuid::Uuid::now_v7(),
        email: "forge@example.com",
        roles: vec!["superadmin".into()],
        token_version: 0,
        family: uuid::Uuid::now_v7(),
    };
    let forged = [
        format!("{none_header}.{payload}."),
        format!("{none_header}.{payload}"),
        wrong_key.issue_pair(&subject).expect("issue").access_token,
        format!("{}x", access),
        String::from("null"),
    ];
    for token in forged {
        for uri in ["/api/v1/identity/users/me", "/api/v1/customer-mgmt/customers", "/api/v1/identity/users"] {
            let (status, _, body) = call(&app, TestRequest::get().uri(uri).insert_header(bearer(&token))).await;
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{uri} with {token}: {body}");
        }
    }
    t.stop().await;
}

#[actix_web::test]
async fn revocations_survive_a_restart_and_are_shared_without_redis() {
    let mut t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    register(&app, "keep@example.com", "password-1").await;
    let login = || post("/api/v1/identity/users/login", json!({"email": "keep@example.com", "password": "password-1"}));
    let (access, revoked_refresh) = session_of(&call(&app, login()).await.2);
    let (_, rotated_refresh) = session_of(&call(&app, login()).await.2);
    let revoke =
        post("/api/v1/identity/auth/revoke", json!({ "token": revoked_refresh })).insert_header(bearer(&access));
    assert_eq!(call(&app, revoke).await.0, StatusCode::OK);
    let (status, _, body) = call(&app, refresh(&rotated_refresh)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (revoked_access, _) = session_of(&call(&app, login()).await.2);
    let revoke =
        post("/api/v1/identity/auth/revoke", json!({ "token": revoked_access })).insert_header(bearer(&access));
    assert_eq!(call(&app, revoke).await.0, StatusCode::OK);
    let (untouched, _) = session_of(&call(&app, login()).await.2);

    // A second instance on the same database, without Redis, sees all of it.
    let second = t.instance(TestOptions::default()).await;
    let other = init_service(build_app(second.state.clone())).await;
    assert_eq!(code(&call(&other, me(&revoked_access)).await.2), Some("TOKEN_REVOKED"));
    assert_eq!(code(&call(&other, refresh(&revoked_refresh)).await.2), Some("TOKEN_REVOKED"));
    second.shutdown().await;

    // So does this instance after a restart.
    t.restart(TestOptions::default()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let (status, _, body) = call(&app, me(&revoked_access)).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")));
    let (status, _, body) = call(&app, refresh(&revoked_refresh)).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")));
    let (status, _, body) = call(&app, refresh(&rotated_refresh)).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")), "a rotated token stays spent");
    assert_eq!(call(&app, me(&untouched)).await.0, StatusCode::OK, "untouched sessions survive too");
    // Presenting the revoked refresh token counted as reuse: its whole family ended.
    assert_eq!(code(&call(&app, me(&access)).await.2), Some("TOKEN_REVOKED"));
    t.stop().await;
}

#[actix_web::test]
async fn wrong_current_passwords_count_toward_the_lock_out() {
    let t = TestApp::start_with(TestOptions::default().with_env("LOGIN_MAX_FAILED_ATTEMPTS", "3")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, token) = register(&app, "guess@example.com", "password-1").await;
    let change = |current: &str| {
        TestRequest::put()
            .uri("/api/v1/identity/users/me/password")
            .insert_header(bearer(&token))
            .set_json(json!({"current_password": current, "new_password": "password-2"}))
    };
    for n in 0..3 {
        let (status, _, body) = call(&app, change(&format!("guess-{n}-wrong"))).await;
        assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, Some("INVALID_CREDENTIALS")), "guess {n}");
    }
    let (status, _, body) = call(&app, change("password-1")).await;
    assert_eq!((status, code(&body)), (StatusCode::LOCKED, Some("ACCOUNT_LOCKED")), "even the right one, while locked");
    let login = post("/api/v1/identity/users/login", json!({"email": "guess@example.com", "password": "password-1"}));
    let (status, _, body) = call(&app, login).await;
    assert_eq!((status, code(&body)), (StatusCode::LOCKED, Some("ACCOUNT_LOCKED")));
    t.stop().await;
}
