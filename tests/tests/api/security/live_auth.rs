//! Tokens checked from memory (the `tally_auth` listener) stay exactly as
//! strict as tokens checked in the database: a change made on another
//! instance or straight in SQL reaches every instance, and an instance whose
//! listener is lost asks the database until it is back.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use serde_json::json;
use tally_tests::{
    bearer, call, login, register_staff, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD, STAFF_ROLE_ID,
};

use crate::crm_support::wait_for;

fn me(token: &str) -> TestRequest {
    TestRequest::get().uri("/api/v1/identity/users/me").insert_header(bearer(token))
}

fn customers(token: &str) -> TestRequest {
    TestRequest::get().uri("/api/v1/customer-mgmt/customers").insert_header(bearer(token))
}

/// Runs `statements` as an operator's tool would: its own connection.
async fn operator_sql(url: &str, statements: &str) {
    let mut conn = AsyncPgConnection::establish(url).await.expect("connect");
    conn.batch_execute(statements).await.expect("operator SQL");
}

#[actix_web::test]
async fn changes_on_another_instance_reach_this_one() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let second = t.instance(TestOptions::default()).await;
    let other = init_service(build_app(second.state.clone())).await;
    assert!(t.state.identity.live.is_live() && second.state.identity.live.is_live(), "listening from the start");
    let (user_id, token) = register_staff(&app, "far@example.com", "password-1").await;
    // The second instance now holds the user's access in memory.
    assert_eq!(call(&other, customers(&token)).await.0, StatusCode::OK);

    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let take = TestRequest::delete()
        .uri(&format!("/api/v1/identity/users/{user_id}/roles/{STAFF_ROLE_ID}"))
        .insert_header(bearer(&admin));
    assert_eq!(call(&app, take).await.0, StatusCode::NO_CONTENT);
    wait_for("the other instance to see the role taken away", || async {
        call(&other, customers(&token)).await.0 == StatusCode::FORBIDDEN
    })
    .await;

    let revoke = TestRequest::post()
        .uri("/api/v1/identity/auth/revoke")
        .insert_header(bearer(&admin))
        .set_json(json!({ "token": token }));
    assert_eq!(call(&app, revoke).await.0, StatusCode::OK);
    wait_for("the other instance to refuse the revoked token", || async {
        let (status, _, body) = call(&other, me(&token)).await;
        (status, body["error"]["code"].as_str()) == (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED"))
    })
    .await;
    second.shutdown().await;
    t.stop().await;
}

#[actix_web::test]
async fn changes_made_straight_in_sql_are_seen() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, token) = register_staff(&app, "sql@example.com", "password-1").await;
    assert_eq!(call(&app, customers(&token)).await.0, StatusCode::OK);

    // A role loses a permission: every cached profile is dropped.
    operator_sql(
        &t.db.url,
        &format!(
            "DELETE FROM role_permissions WHERE role_id = '{STAFF_ROLE_ID}' \
             AND permission_id = (SELECT id FROM permissions WHERE name = 'customers:read')"
        ),
    )
    .await;
    wait_for("the lost permission to take effect", || async {
        call(&app, customers(&token)).await.0 == StatusCode::FORBIDDEN
    })
    .await;

    operator_sql(&t.db.url, "UPDATE users SET status = 'suspended' WHERE email = 'sql@example.com'").await;
    wait_for("the suspension to take effect", || async { call(&app, me(&token)).await.0 == StatusCode::UNAUTHORIZED })
        .await;
    t.stop().await;
}

#[actix_web::test]
async fn a_lost_listener_falls_back_to_the_database_and_reconnects() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, token) = register_staff(&app, "lost@example.com", "password-1").await;
    let (_, kept) = register_staff(&app, "kept@example.com", "password-1").await;
    assert_eq!(call(&app, me(&token)).await.0, StatusCode::OK);

    operator_sql(
        &t.db.url,
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE application_name = 'tally-auth-listener' AND datname = current_database()",
    )
    .await;
    wait_for("the instance to notice its listener is gone", || async { !t.state.identity.live.is_live() }).await;
    // Down: every request asks the database, so a change nobody announced to
    // this instance still counts at once.
    operator_sql(&t.db.url, "UPDATE users SET token_version = token_version + 1 WHERE email = 'lost@example.com'")
        .await;
    let (status, _, body) = call(&app, me(&token)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")));
    assert_eq!(call(&app, me(&kept)).await.0, StatusCode::OK);

    wait_for("the listener to reconnect", || async { t.state.identity.live.is_live() }).await;
    assert_eq!(call(&app, me(&token)).await.0, StatusCode::UNAUTHORIZED, "still refused from memory");
    assert_eq!(call(&app, me(&kept)).await.0, StatusCode::OK);
    t.stop().await;
}
