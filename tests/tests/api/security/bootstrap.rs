//! Start-up cannot be talked into promoting a stranger or signing with a
//! secret anybody can read; registration can be closed.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use api::config::PUBLISHED_EXAMPLE_SECRETS;
use api::startup::{create_admin, serve, start_services, StartupError};
use serde_json::json;
use tally_tests::app::settings_for;
use tally_tests::{bearer, call, login, register, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};

use crate::crm_support::wait_for;

const SUPERADMIN_ROLE_ID: &str = "01900000-0000-7000-8000-000000000001";
const ADMIN_ROLE_ID: &str = "01900000-0000-7000-8000-000000000002";

#[actix_web::test]
async fn admin_email_never_promotes_a_registered_account() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (eve_id, eve_token) = register(&app, "eve@example.com", "eve-password-1").await;
    let options = TestOptions::default()
        .with_env("ADMIN_EMAIL", "eve@example.com")
        .with_env("ADMIN_PASSWORD", "taken-over-password");
    let outcome = start_services(settings_for(&t.db.url, &options.env), Vec::new()).await;
    let Err(error) = outcome else { panic!("start-up must refuse to promote a registered account") };
    assert!(matches!(error, StartupError::AdminRefused(_)), "{error}");
    assert_eq!(error.exit_code(), 2);
    let line = error.to_string();
    assert!(line.contains("eve@example.com") && line.contains("--promote") && !line.contains('\n'), "{line}");
    assert!(line.contains("nothing changed"), "{line}");
    // Nothing changed: Eve is no admin and keeps her password.
    let users = TestRequest::get().uri("/api/v1/identity/users").insert_header(bearer(&eve_token));
    assert_eq!(call(&app, users).await.0, StatusCode::FORBIDDEN);
    login(&app, "eve@example.com", "eve-password-1").await;

    // The explicit way: create-admin --promote sets the password and ends her sessions.
    let settings = settings_for(&t.db.url, &TestOptions::default().env);
    let promoted = create_admin(settings, "eve@example.com".into(), "promoted-password".into(), None, true).await;
    assert!(promoted.is_ok(), "{promoted:?}");
    // Another process changed the user: this instance hears of it from the
    // database's notice, a moment after the commit.
    wait_for("eve's earlier token to be refused", || async {
        let (status, _, body) =
            call(&app, TestRequest::get().uri("/api/v1/identity/users/me").insert_header(bearer(&eve_token))).await;
        (status, body["error"]["code"].as_str()) == (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED"))
    })
    .await;
    let admin = login(&app, "eve@example.com", "promoted-password").await;
    let users = TestRequest::get().uri("/api/v1/identity/users").insert_header(bearer(&admin));
    assert_eq!(call(&app, users).await.0, StatusCode::OK);
    let _ = eve_id;

    // Without --promote, create-admin refuses too.
    let (_, _) = register(&app, "mallory@example.com", "mallory-password").await;
    let settings = settings_for(&t.db.url, &TestOptions::default().env);
    let refused = create_admin(settings, "mallory@example.com".into(), "x-password-1".into(), None, false).await;
    assert!(matches!(refused, Err(StartupError::AdminRefused(_))), "{refused:?}");

    // An existing admin starts without fuss (restart with the same ADMIN_EMAIL), untouched.
    let again = start_services(settings_for(&t.db.url, &TestOptions::default().env), Vec::new()).await;
    let Ok(again) = again else { panic!("an existing admin is fine") };
    again.shutdown().await;
    t.stop().await;
}

#[actix_web::test]
async fn serve_refuses_every_published_example_secret() {
    for secret in PUBLISHED_EXAMPLE_SECRETS {
        let settings =
            settings_for("postgres://postgres@127.0.0.1:5432/never_created", &[("JWT_SECRET", (*secret).to_owned())]);
        let error = serve(settings).await.expect_err("must refuse");
        assert!(matches!(error, StartupError::Config(_)), "{error}");
        assert_eq!(error.exit_code(), 2);
        assert!(error.to_string().starts_with("configuration: JWT_SECRET"), "{error}");
    }
}

#[actix_web::test]
async fn closed_registration_answers_403() {
    let t = TestApp::start_with(TestOptions::default().with_env("REGISTRATION", "closed")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let request = TestRequest::post()
        .uri("/api/v1/identity/users/register")
        .set_json(json!({"email": "late@example.com", "name": "Late", "password": "password-1"}));
    let (status, _, body) = call(&app, request).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("REGISTRATION_CLOSED")));
    t.stop().await;
}

/// The roles of `email`'s account, read from the database, sorted.
async fn roles_in_db(t: &TestApp, email: &str) -> Vec<String> {
    let user = t.state.identity.users.find_by_email(email).await.expect("lookup").expect("user exists");
    let mut roles: Vec<String> =
        t.state.identity.roles.user_roles(user.id).await.expect("roles").into_iter().map(|r| r.name).collect();
    roles.sort();
    roles
}

/// ADMIN_EMAIL creates a missing admin and otherwise changes nothing, so a
/// restart never undoes what a superadmin did to that account since.
#[actix_web::test]
async fn admin_email_at_a_restart_leaves_a_demoted_or_banned_admin_as_it_is() {
    let mut t = TestApp::start().await;
    let settings = settings_for(&t.db.url, &TestOptions::default().env);
    let made = create_admin(settings, "root2@example.com".into(), "root2-password".into(), None, false).await;
    assert!(made.is_ok(), "{made:?}");
    let app = init_service(build_app(t.state.clone())).await;
    let root2 = login(&app, "root2@example.com", "root2-password").await;
    let first = t.state.identity.users.find_by_email(ADMIN_EMAIL).await.expect("lookup").expect("admin").id;
    assert_eq!(roles_in_db(&t, ADMIN_EMAIL).await, ["admin", "superadmin"]);

    // Demoted to a plain admin, with a password of its own: a restart re-grants and re-passwords nothing.
    let demote = TestRequest::delete()
        .uri(&format!("/api/v1/identity/users/{first}/roles/{SUPERADMIN_ROLE_ID}"))
        .insert_header(bearer(&root2));
    assert_eq!(call(&app, demote).await.0, StatusCode::NO_CONTENT);
    let own = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let change = TestRequest::put()
        .uri("/api/v1/identity/users/me/password")
        .insert_header(bearer(&own))
        .set_json(json!({"current_password": ADMIN_PASSWORD, "new_password": "changed-password-1"}));
    assert_eq!(call(&app, change).await.0, StatusCode::OK);
    t.restart(TestOptions::default()).await;
    let app = init_service(build_app(t.state.clone())).await;
    assert_eq!(roles_in_db(&t, ADMIN_EMAIL).await, ["admin"], "superadmin is not granted again");
    let old = TestRequest::post()
        .uri("/api/v1/identity/users/login")
        .set_json(json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD}));
    assert_eq!(call(&app, old).await.0, StatusCode::UNAUTHORIZED, "ADMIN_PASSWORD is not set again");
    login(&app, ADMIN_EMAIL, "changed-password-1").await;

    // Banned: a restart does not re-activate it.
    let root2 = login(&app, "root2@example.com", "root2-password").await;
    let ban = TestRequest::put()
        .uri(&format!("/api/v1/identity/users/{first}/ban"))
        .insert_header(bearer(&root2))
        .set_json(json!({"reason": "left"}));
    assert_eq!(call(&app, ban).await.0, StatusCode::OK);
    t.restart(TestOptions::default()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let banned = TestRequest::post()
        .uri("/api/v1/identity/users/login")
        .set_json(json!({"email": ADMIN_EMAIL, "password": "changed-password-1"}));
    let (status, _, body) = call(&app, banned).await;
    assert_eq!((status, body["error"]["code"].as_str()), (StatusCode::FORBIDDEN, Some("ACCOUNT_BANNED")));
    let status = t.state.identity.users.find_by_id(first).await.expect("lookup").expect("user").status;
    assert_eq!(status.as_str(), "banned");

    // No administrator role left at all: start-up says so in one line and changes nothing.
    let root2 = login(&app, "root2@example.com", "root2-password").await;
    let strip = TestRequest::delete()
        .uri(&format!("/api/v1/identity/users/{first}/roles/{ADMIN_ROLE_ID}"))
        .insert_header(bearer(&root2));
    assert_eq!(call(&app, strip).await.0, StatusCode::NO_CONTENT);
    let outcome = start_services(settings_for(&t.db.url, &TestOptions::default().env), Vec::new()).await;
    let Err(error) = outcome else { panic!("start-up must not make an admin of a demoted account") };
    assert!(matches!(error, StartupError::AdminRefused(_)), "{error}");
    assert!(roles_in_db(&t, ADMIN_EMAIL).await.is_empty());

    // The explicit way still does all of it.
    let settings = settings_for(&t.db.url, &TestOptions::default().env);
    let promoted = create_admin(settings, ADMIN_EMAIL.into(), "promoted-password-1".into(), None, true).await;
    assert!(promoted.is_ok(), "{promoted:?}");
    assert_eq!(roles_in_db(&t, ADMIN_EMAIL).await, ["admin", "superadmin"]);
    let status = t.state.identity.users.find_by_id(first).await.expect("lookup").expect("user").status;
    assert_eq!(status.as_str(), "active");
    t.stop().await;
}

#[actix_web::test]
async fn a_short_metrics_token_is_refused_at_start_up() {
    let short = "m".repeat(31);
    let read = |token: &str| {
        let token = token.to_owned();
        api::Settings::from_lookup(&move |name| match name {
            "METRICS_TOKEN" => Some(token.clone()),
            "LOG_FORMAT" => Some("json".to_owned()),
            _ => None,
        })
    };
    let error = read(&short).expect_err("31 bytes are refused");
    assert_eq!(error.name, "METRICS_TOKEN");
    let line = StartupError::from(error);
    assert_eq!(line.exit_code(), 2);
    let line = line.to_string();
    assert!(line.starts_with("configuration: METRICS_TOKEN") && !line.contains('\n'), "{line}");
    assert!(!line.contains(&short), "the token itself is never printed: {line}");
    assert_eq!(read(&"m".repeat(32)).expect("32 bytes are enough").metrics_token.map(|t| t.len()), Some(32));
}
