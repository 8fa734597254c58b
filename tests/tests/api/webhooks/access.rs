//! Webhooks deliver only what their creator may read (docs/webhooks.md): a user's current
//! permissions, an API key's and its owner's both; test pings always; payloads shown only to
//! callers who may read them; and no recorded error naming where a host name pointed.

use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::test::init_service;
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{login, register, Receiver, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use super::{endpoint, options, quiet, types, WEBHOOKS};
use crate::commerce_support::order;
use crate::crm_support::{count, delete, expect, get, id_of, new_customer, post, reject, wait_for};
use crate::support::eventually;

const PATIENCE: Duration = Duration::from_secs(15);
const ROLES: &str = "/api/v1/identity/roles";

/// A role holding exactly `permissions`; returns its id.
async fn role<S, B>(app: &S, admin: &str, name: &str, permissions: &[&str]) -> Uuid
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let body = json!({"name": name, "display_name": name, "description": "webhook tests"});
    let role = id_of(&expect(app, 201, post(ROLES, admin, body)).await);
    let mut ids = Vec::new();
    for name in permissions {
        ids.push(permission(app, admin, name).await);
    }
    expect(app, 200, post(&format!("{ROLES}/{role}/permissions"), admin, json!({"permission_ids": ids}))).await;
    role
}

async fn permission<S, B>(app: &S, admin: &str, name: &str) -> Uuid
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    id_of(&expect(app, 200, get(&format!("/api/v1/identity/permissions/name/{name}"), admin)).await)
}

/// Takes `name` from the role, or gives it back.
async fn revoke<S, B>(app: &S, admin: &str, role: Uuid, name: &str)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let permission = permission(app, admin, name).await;
    expect(app, 204, delete(&format!("{ROLES}/{role}/permissions/{permission}"), admin)).await;
}

async fn grant<S, B>(app: &S, admin: &str, role: Uuid, name: &str)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let ids = [permission(app, admin, name).await];
    expect(app, 200, post(&format!("{ROLES}/{role}/permissions"), admin, json!({"permission_ids": ids}))).await;
}

/// A newly registered user holding `role` (and the permission-less `user`); returns their token.
async fn user_with<S, B>(app: &S, admin: &str, email: &str, role: Uuid) -> String
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (id, token) = register(app, email, "member-password-1").await;
    expect(app, 200, post(&format!("/api/v1/identity/users/{id}/roles"), admin, json!({"role_id": role}))).await;
    token
}

/// An API key of the user behind `token`; returns (id, key).
async fn key<S, B>(app: &S, token: &str, password: &str, permissions: &[&str]) -> (String, String)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let body = json!({"name": "hooks", "permissions": permissions, "current_password": password});
    let created = expect(app, 201, post("/api/v1/identity/api-keys", token, body)).await;
    (created["id"].as_str().expect("id").to_owned(), created["key"].as_str().expect("key").to_owned())
}

/// Deliveries of the endpoint, all types or those not test pings.
async fn logged(t: &TestApp, endpoint: Uuid, events_only: bool) -> i64 {
    let sql = if events_only {
        "SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type <> 'webhook.test'"
    } else {
        "SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $1"
    };
    count(t, sql, endpoint).await
}

#[actix_web::test]
async fn an_endpoint_hears_only_what_its_creator_may_read_now() {
    let receiver = Receiver::start().await;
    let t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let hooks_only = role(&app, &admin, "hooks-only", &["webhooks:*"]).await;
    let readers = role(&app, &admin, "hook-readers", &["webhooks:*", "customers:read"]).await;
    let limited = user_with(&app, &admin, "limited@example.com", hooks_only).await;
    let reader = user_with(&app, &admin, "reader@example.com", readers).await;
    quiet(&t).await;
    let (blind, _) = endpoint(&app, &limited, &receiver.url("/blind"), &["*"]).await;
    let (reading, _) = endpoint(&app, &reader, &receiver.url("/reader"), &["customer.created"]).await;
    let (control, _) = endpoint(&app, &admin, &receiver.url("/control"), &["customer.created"]).await;

    // A test ping reaches every endpoint, whatever its creator may read.
    expect(&app, 202, post(&format!("{WEBHOOKS}/{blind}/test"), &limited, json!({}))).await;
    new_customer(&app, &admin, json!({"name": "First", "email": "first@example.com"})).await;
    eventually(PATIENCE, "the ping and the first customer", || {
        receiver.received_at("/blind").len() == 1
            && receiver.received_at("/reader").len() == 1
            && receiver.received_at("/control").len() == 1
    })
    .await;
    assert_eq!(types(&receiver.received_at("/blind")), ["webhook.test"]);
    assert_eq!(types(&receiver.received_at("/reader")), ["customer.created"]);
    // The control endpoint's delivery and the others' come from one statement: it is settled.
    assert_eq!(logged(&t, blind, true).await, 0, "no customers:read, so not even a delivery is made");
    assert_eq!(logged(&t, reading, false).await, 1);

    // Without customers:read any more, the reader's endpoint hears no customer.
    revoke(&app, &admin, readers, "customers:read").await;
    new_customer(&app, &admin, json!({"name": "Second", "email": "second@example.com"})).await;
    eventually(PATIENCE, "the second customer", || receiver.received_at("/control").len() == 2).await;
    assert_eq!(logged(&t, control, false).await, 2);
    assert_eq!(logged(&t, reading, false).await, 1, "no delivery made after the permission went");
    assert_eq!(logged(&t, blind, true).await, 0);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.received_at("/reader").len(), 1);
    assert_eq!(types(&receiver.received_at("/blind")), ["webhook.test"]);
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn a_key_made_endpoint_hears_what_both_the_key_and_its_owner_may_read() {
    let receiver = Receiver::start().await;
    let t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let service = role(&app, &admin, "hook-service", &["webhooks:*", "customers:read", "orders:read"]).await;
    let owner = user_with(&app, &admin, "owner@example.com", service).await;
    // The key may read orders, not customers, though its owner may read both.
    let (key_id, key) = key(&app, &owner, "member-password-1", &["webhooks:*", "orders:read"]).await;
    quiet(&t).await;
    let created = expect(&app, 201, post(WEBHOOKS, &key, json!({"url": receiver.url("/key"), "events": ["*"]}))).await;
    assert_eq!(created["created_by_api_key"].as_str(), Some(key_id.as_str()), "{created}");
    let keyed = id_of(&created);
    let (control, _) = endpoint(&app, &admin, &receiver.url("/control"), &["customer.created", "order.created"]).await;

    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Keyed", "email": "keyed@example.com"})).await);
    order(&app, &admin, customer, json!({})).await;
    eventually(PATIENCE, "the customer and the order", || {
        receiver.received_at("/control").len() == 2 && !receiver.received_at("/key").is_empty()
    })
    .await;
    assert_eq!(types(&receiver.received_at("/key")), ["order.created"], "the key may not read customers");
    let customers =
        "SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type LIKE 'customer.%'";
    assert_eq!(count(&t, customers, keyed).await, 0);

    // The owner loses orders:read: the key's own permission is not enough.
    revoke(&app, &admin, service, "orders:read").await;
    order(&app, &admin, customer, json!({})).await;
    eventually(PATIENCE, "the second order", || receiver.received_at("/control").len() == 3).await;
    assert_eq!(logged(&t, keyed, false).await, 1);
    // Given back, it is heard again: what counts is what the creator may read now.
    grant(&app, &admin, service, "orders:read").await;
    order(&app, &admin, customer, json!({})).await;
    eventually(PATIENCE, "the third order", || receiver.received_at("/key").len() == 2).await;
    // A revoked key's endpoint hears nothing more.
    expect(&app, 204, delete(&format!("/api/v1/identity/api-keys/{key_id}"), &owner)).await;
    order(&app, &admin, customer, json!({})).await;
    eventually(PATIENCE, "the fourth order", || receiver.received_at("/control").len() == 5).await;
    assert_eq!(logged(&t, keyed, false).await, 2);
    assert_eq!(logged(&t, control, false).await, 5);
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn a_permission_taken_away_before_a_retry_ends_the_delivery() {
    let receiver = Receiver::start().await;
    receiver.answer(&[500]);
    let t = TestApp::start_with(options().with_env("WEBHOOK_RETRY_SCHEDULE", "1s")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let readers = role(&app, &admin, "hook-readers", &["webhooks:*", "customers:read"]).await;
    let reader = user_with(&app, &admin, "reader@example.com", readers).await;
    quiet(&t).await;
    let (reading, _) = endpoint(&app, &reader, &receiver.url("/reader"), &["customer.created"]).await;
    new_customer(&app, &admin, json!({"name": "Retried", "email": "retried@example.com"})).await;
    eventually(PATIENCE, "the first attempt", || receiver.received().len() == 1).await;
    revoke(&app, &admin, readers, "customers:read").await;
    wait_for("the delivery is dropped at its retry", || async { logged(&t, reading, false).await == 0 }).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(receiver.received().len(), 1, "the retry was never sent");
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn a_delivery_payload_is_shown_only_to_who_may_read_it() {
    let receiver = Receiver::start().await;
    let t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let hooks_only = role(&app, &admin, "hooks-only", &["webhooks:*"]).await;
    let monitor = user_with(&app, &admin, "monitor@example.com", hooks_only).await;
    let (_, admin_key) = key(&app, &admin, ADMIN_PASSWORD, &["webhooks:*"]).await;
    quiet(&t).await;
    let (id, _) = endpoint(&app, &admin, &receiver.url("/customers"), &["customer.created"]).await;
    new_customer(&app, &admin, json!({"name": "Private", "email": "private@example.com"})).await;
    let ping = expect(&app, 202, post(&format!("{WEBHOOKS}/{id}/test"), &admin, json!({}))).await;
    let log = format!("{WEBHOOKS}/{id}/deliveries");
    wait_for("both deliveries", || async {
        expect(&app, 200, get(&log, &admin)).await.as_array().is_some_and(|l| l.len() == 2)
    })
    .await;
    let listed: Value = expect(&app, 200, get(&log, &monitor)).await;
    assert_eq!(listed.as_array().map(Vec::len), Some(2), "the list carries no payload: all of it is shown");
    let customer = listed
        .as_array()
        .and_then(|l| l.iter().find(|d| d["event_type"] == json!("customer.created")))
        .expect("the customer's delivery")["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let detail = format!("{log}/{customer}");
    let retry = format!("{detail}/retry");
    for caller in [&monitor, &admin_key] {
        let refused = reject(&app, 403, "FORBIDDEN", get(&detail, caller)).await;
        assert!(refused["message"].as_str().is_some_and(|m| m.contains("customers:read")), "{refused}");
        reject(&app, 403, "FORBIDDEN", post(&retry, caller, json!({}))).await;
        let ping = expect(&app, 200, get(&format!("{log}/{}", ping["id"].as_str().expect("id")), caller)).await;
        assert_eq!(ping["payload"]["type"], json!("webhook.test"), "a test ping carries nothing to hide");
    }
    let shown = expect(&app, 200, get(&detail, &admin)).await;
    assert_eq!(shown["payload"]["data"]["data"]["email"], json!("private@example.com"));
    reject(&app, 404, "NOT_FOUND", get(&format!("{log}/{}", Uuid::now_v7()), &monitor)).await;
    receiver.stop().await;
    t.stop().await;
}

/// Whether `text` names an IP address (a token with a digit that parses as one, with or
/// without a port).
fn names_an_address(text: &str) -> bool {
    text.split(|c: char| !(c.is_ascii_hexdigit() || ".:[]".contains(c)))
        .map(|token| token.trim_matches(|c| c == '.' || c == ':'))
        .filter(|token| token.chars().any(|c| c.is_ascii_digit()))
        .any(|token| {
            token.trim_matches(|c| c == '[' || c == ']').parse::<std::net::IpAddr>().is_ok()
                || token.parse::<std::net::SocketAddr>().is_ok()
        })
}

#[actix_web::test]
async fn a_recorded_error_never_names_what_a_host_name_resolved_to() {
    assert!(names_an_address("refused: 127.0.0.1 is a loopback") && names_an_address("to [::1]:443 failed"));
    assert!(!names_an_address("localhost resolves to a loopback (os error 111)"));
    let receiver = Receiver::start().await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port").local_addr().expect("port").port();
    let mut t = TestApp::start_with(options().with_env("WEBHOOK_RETRY_SCHEDULE", "none")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (unreachable, _) = endpoint(&app, &admin, &format!("http://localhost:{closed}/x"), &["nothing.*"]).await;
    let (named, _) =
        endpoint(&app, &admin, &format!("http://localhost:{}/x", receiver.addr.port()), &["nothing.*"]).await;
    let first = failed_attempt(&app, &admin, unreachable).await;
    drop(app);
    // Private destinations turned off: the name now resolves to a refused address.
    t.restart(TestOptions::default().with_env("WEBHOOK_RETRY_SCHEDULE", "none")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let refused = failed_attempt(&app, &admin, named).await;
    assert!(refused.contains("refused") && refused.contains("localhost"), "{refused}");
    for error in [&first, &refused] {
        assert!(!names_an_address(error), "{error}");
    }
    assert!(receiver.received().is_empty());
    receiver.stop().await;
    t.stop().await;
}

/// Sends a test ping to `endpoint`, waits for its one attempt to fail, returns the recorded error.
async fn failed_attempt<S, B>(app: &S, admin: &str, endpoint: Uuid) -> String
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let ping = expect(app, 202, post(&format!("{WEBHOOKS}/{endpoint}/test"), admin, json!({}))).await;
    let uri = format!("{WEBHOOKS}/{endpoint}/deliveries/{}", ping["id"].as_str().expect("id"));
    wait_for("the attempt", || async { expect(app, 200, get(&uri, admin)).await["status"] == json!("failed") }).await;
    let attempt = &expect(app, 200, get(&uri, admin)).await["attempts"][0];
    assert_eq!(attempt["response_status"], json!(null), "{attempt}");
    attempt["error"].as_str().expect("an error").to_owned()
}
