//! Start-up cannot be talked into promoting a stranger or signing with a
//! secret anybody can read; registration can be closed.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use api::config::PUBLISHED_EXAMPLE_SECRETS;
use api::startup::{create_admin, serve, start_services, StartupError};
use serde_json::json;
use tally_tests::app::settings_for;
use tally_tests::{bearer, call, login, register, TestApp, TestOptions};

use crate::crm_support::wait_for;

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

    // An existing admin is ensured again without fuss (restart with the same ADMIN_EMAIL).
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
