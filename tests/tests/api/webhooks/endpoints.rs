//! Managing endpoints: who may, what URLs are accepted, and disabled endpoints hearing nothing.

use std::time::Duration;

use actix_web::test::init_service;
use api::build_app;
use serde_json::json;
use tally_tests::{call, login, register_staff, Receiver, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};

use super::{endpoint, options, quiet, WEBHOOKS};
use crate::crm_support::{delete, expect, get, new_customer, post, put, reject, wait_for};
use crate::support::eventually;

#[actix_web::test]
async fn endpoints_are_created_read_replaced_and_deleted() {
    let t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let body = json!({"url": "https://hooks.example.com/tally", "events": ["order.*", "order.*", "customer.created"],
                      "description": " Shop "});
    let (status, headers, created) = call(&app, post(WEBHOOKS, &admin, body)).await;
    assert_eq!(status.as_u16(), 201, "{created}");
    let data = &created["data"];
    assert_eq!(data["events"], json!(["order.*", "customer.created"]), "duplicates dropped");
    assert_eq!((data["description"].as_str(), data["enabled"].as_bool()), (Some("Shop"), Some(true)));
    assert!(data["secret"].as_str().is_some_and(|s| s.starts_with("whsec_")));
    let id = data["id"].as_str().expect("id").to_owned();
    let tag = headers.get("etag").and_then(|v| v.to_str().ok()).expect("etag").to_owned();

    let listed = expect(&app, 200, get(WEBHOOKS, &admin)).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(1));
    assert!(listed[0].get("secret").is_none());

    let replaced = json!({"url": "https://hooks.example.com/v2", "events": ["*"], "enabled": false});
    let stale = put(&format!("{WEBHOOKS}/{id}"), &admin, replaced.clone()).insert_header(("If-Match", "\"nope\""));
    reject(&app, 412, "PRECONDITION_FAILED", stale).await;
    let current = put(&format!("{WEBHOOKS}/{id}"), &admin, replaced).insert_header(("If-Match", tag.as_str()));
    let updated = expect(&app, 200, current).await;
    assert_eq!(
        (updated["url"].as_str(), updated["enabled"].as_bool(), updated["disabled_reason"].as_str()),
        (Some("https://hooks.example.com/v2"), Some(false), Some("manual"))
    );
    assert_eq!(updated["description"], json!(null), "PUT replaces");
    reject(&app, 409, "WEBHOOK_DISABLED", post(&format!("{WEBHOOKS}/{id}/test"), &admin, json!({}))).await;

    expect(&app, 204, delete(&format!("{WEBHOOKS}/{id}"), &admin)).await;
    reject(&app, 404, "NOT_FOUND", get(&format!("{WEBHOOKS}/{id}"), &admin)).await;
    reject(&app, 404, "NOT_FOUND", delete(&format!("{WEBHOOKS}/{id}"), &admin)).await;
    reject(&app, 404, "NOT_FOUND", post(&format!("{WEBHOOKS}/{id}/rotate-secret"), &admin, json!({}))).await;
    reject(&app, 400, "INVALID_UUID", get(&format!("{WEBHOOKS}/not-a-uuid"), &admin)).await;
    t.stop().await;
}

#[actix_web::test]
async fn bad_endpoints_are_refused_field_by_field() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let refused = reject(
        &app,
        400,
        "VALIDATION_ERROR",
        post(WEBHOOKS, &admin, json!({"url": "http://hooks.example.com/", "events": ["Order.*"]})),
    )
    .await;
    assert!(refused["details"]["url"].as_str().is_some_and(|m| m.contains("https")), "{refused}");
    assert!(refused["details"]["events"].is_string(), "{refused}");
    // Without WEBHOOK_ALLOW_PRIVATE, no internal destination, however it is written.
    for url in [
        "https://127.0.0.1/x",
        "https://localhost:8443/",
        "https://169.254.169.254/latest/meta-data",
        "https://10.0.0.8/",
        "https://[::1]/",
        "https://[fd00::1]/",
        "https://2130706433/",
        "https://192.168.1.10:443/",
    ] {
        let refused =
            reject(&app, 400, "VALIDATION_ERROR", post(WEBHOOKS, &admin, json!({"url": url, "events": ["*"]}))).await;
        assert!(refused["details"]["url"].as_str().is_some_and(|m| m.contains("private")), "{url}: {refused}");
    }
    for body in [
        json!({"url": "ftp://example.com/", "events": ["*"]}),
        json!({"url": "https://user:pw@example.com/", "events": ["*"]}),
        json!({"url": "https://example.com/", "events": []}),
        json!({"url": "https://example.com/", "events": ["*"], "description": "d".repeat(501)}),
        json!({"url": "https://example.com/", "events": "order.*"}),
        json!({"events": ["*"]}),
    ] {
        reject(&app, 400, "VALIDATION_ERROR", post(WEBHOOKS, &admin, body)).await;
    }
    assert_eq!(expect(&app, 200, get(WEBHOOKS, &admin)).await, json!([]), "nothing was saved");
    t.stop().await;
}

#[actix_web::test]
async fn only_holders_of_webhooks_permissions_manage_them() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (_, staff) = register_staff(&app, "staff@example.com", "staff-password-1").await;
    let (id, _) = endpoint(&app, &admin, "https://hooks.example.com/a", &["*"]).await;
    let body = json!({"url": "https://hooks.example.com/b", "events": ["*"]});
    for request in [
        get(WEBHOOKS, &staff),
        post(WEBHOOKS, &staff, body.clone()),
        get(&format!("{WEBHOOKS}/{id}"), &staff),
        put(&format!("{WEBHOOKS}/{id}"), &staff, body.clone()),
        delete(&format!("{WEBHOOKS}/{id}"), &staff),
        post(&format!("{WEBHOOKS}/{id}/rotate-secret"), &staff, json!({})),
        post(&format!("{WEBHOOKS}/{id}/test"), &staff, json!({})),
        get(&format!("{WEBHOOKS}/{id}/deliveries"), &staff),
    ] {
        reject(&app, 403, "FORBIDDEN", request).await;
    }
    reject(&app, 401, "UNAUTHORIZED", actix_web::test::TestRequest::get().uri(WEBHOOKS)).await;

    // A service's key with webhooks:read reads them and nothing more.
    let key = expect(
        &app,
        201,
        post(
            "/api/v1/identity/api-keys",
            &admin,
            json!({"name": "monitor", "permissions": ["webhooks:read"], "current_password": ADMIN_PASSWORD}),
        ),
    )
    .await["key"]
        .as_str()
        .expect("key")
        .to_owned();
    assert_eq!(expect(&app, 200, get(WEBHOOKS, &key)).await.as_array().map(Vec::len), Some(1));
    reject(&app, 403, "FORBIDDEN", post(WEBHOOKS, &key, body)).await;
    reject(&app, 403, "FORBIDDEN", post(&format!("{WEBHOOKS}/{id}/rotate-secret"), &key, json!({}))).await;
    t.stop().await;
}

#[actix_web::test]
async fn internal_addresses_are_refused_at_send_time_too() {
    let receiver = Receiver::start().await;
    // Saved while private destinations were allowed...
    let mut t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (id, _) = endpoint(&app, &admin, &receiver.url("/internal"), &["nothing.*"]).await;
    let named_url = format!("http://localhost:{}/named", receiver.addr.port());
    let (named, _) = endpoint(&app, &admin, &named_url, &["nothing.*"]).await;
    drop(app);
    // ...then the operator turned them off: the resolved address is checked at every send.
    t.restart(TestOptions::default().with_env("WEBHOOK_RETRY_SCHEDULE", "none")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    for endpoint in [id, named] {
        let ping = expect(&app, 202, post(&format!("{WEBHOOKS}/{endpoint}/test"), &admin, json!({}))).await;
        let uri = format!("{WEBHOOKS}/{endpoint}/deliveries/{}", ping["id"].as_str().expect("id"));
        wait_for("the attempt", || async { expect(&app, 200, get(&uri, &admin)).await["status"] == json!("failed") })
            .await;
        let attempt = &expect(&app, 200, get(&uri, &admin)).await["attempts"][0];
        assert_eq!(attempt["response_status"], json!(null));
        assert!(attempt["error"].as_str().is_some_and(|e| e.contains("refused")), "{attempt}");
    }
    assert!(receiver.received().is_empty(), "no request reached the internal address");
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn disabled_endpoints_receive_nothing_and_failing_ones_are_disabled() {
    let receiver = Receiver::start().await;
    receiver.answer(&[500]);
    let options = options().with_env("WEBHOOK_RETRY_SCHEDULE", "none").with_env("WEBHOOK_DISABLE_AFTER", "0s");
    let t = TestApp::start_with(options).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    quiet(&t).await;
    let (failing, _) = endpoint(&app, &admin, &receiver.url("/failing"), &["customer.created"]).await;
    let (control, _) = endpoint(&app, &admin, &receiver.url("/control"), &["customer.created"]).await;
    let off = json!({"url": receiver.url("/off"), "events": ["*"], "enabled": false});
    expect(&app, 201, post(WEBHOOKS, &admin, off)).await;

    new_customer(&app, &admin, json!({"name": "One", "email": "one@example.com"})).await;
    let failing_uri = format!("{WEBHOOKS}/{failing}");
    wait_for("the failing endpoint is disabled", || async {
        expect(&app, 200, get(&failing_uri, &admin)).await["enabled"] == json!(false)
    })
    .await;
    let disabled = expect(&app, 200, get(&failing_uri, &admin)).await;
    assert_eq!(disabled["disabled_reason"], json!("failing"));
    assert!(disabled["failing_since"].is_string());
    let scrape =
        actix_web::test::TestRequest::get().uri("/metrics").peer_addr("127.0.0.1:40000".parse().expect("addr"));
    let metrics = actix_web::test::call_service(&app, scrape.to_request()).await;
    let text = String::from_utf8(actix_web::test::read_body(metrics).await.to_vec()).expect("utf-8");
    assert!(text.contains("tally_webhook_endpoints_failing 1"), "the operator sees it: {text}");

    new_customer(&app, &admin, json!({"name": "Two", "email": "two@example.com"})).await;
    eventually(Duration::from_secs(15), "the control endpoint hears both", || {
        receiver.received_at("/control").len() == 2
    })
    .await;
    assert_eq!(receiver.received_at("/failing").len(), 1, "nothing after it was disabled");
    assert!(receiver.received_at("/off").is_empty(), "a disabled endpoint hears nothing");
    let log = expect(&app, 200, get(&format!("{failing_uri}/deliveries"), &admin)).await;
    assert_eq!(log.as_array().map(Vec::len), Some(1), "no delivery was even made: {log}");
    let control_log = expect(&app, 200, get(&format!("{WEBHOOKS}/{control}/deliveries"), &admin)).await;
    assert_eq!(control_log.as_array().map(Vec::len), Some(2));

    // Edited while disabled, it stays disabled for the same reason, its clock kept.
    let edit = json!({"url": receiver.url("/failing"), "events": ["customer.created"], "enabled": false,
                      "description": "edited"});
    let edited = expect(&app, 200, put(&failing_uri, &admin, edit)).await;
    assert_eq!(
        (edited["disabled_reason"].clone(), edited["failing_since"].clone()),
        (json!("failing"), disabled["failing_since"].clone())
    );
    // An enabled endpoint that has been failing keeps its clock through an edit...
    let mut conn = t.state.pool.get().await.expect("conn");
    diesel_async::RunQueryDsl::execute(
        diesel::sql_query("UPDATE webhook_endpoints SET failing_since = now() - interval '1 hour' WHERE id = $1")
            .bind::<diesel::sql_types::Uuid, _>(control),
        &mut conn,
    )
    .await
    .expect("a failing endpoint");
    drop(conn);
    let control_edit = json!({"url": receiver.url("/control"), "events": ["customer.created"], "description": "x"});
    let control_now = expect(&app, 200, put(&format!("{WEBHOOKS}/{control}"), &admin, control_edit)).await;
    assert!(control_now["failing_since"].is_string(), "an edit does not hide failures: {control_now}");

    // ...while enabling a disabled one starts afresh.
    let on = json!({"url": receiver.url("/failing"), "events": ["customer.created"], "enabled": true});
    let enabled = expect(&app, 200, put(&failing_uri, &admin, on)).await;
    assert_eq!((enabled["disabled_reason"].clone(), enabled["failing_since"].clone()), (json!(null), json!(null)));
    receiver.stop().await;
    t.stop().await;
}
