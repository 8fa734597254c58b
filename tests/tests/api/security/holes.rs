//! The smaller holes (docs/identity.md): a changed contact value loses its
//! verification, a profile ban outlives the profile, superadmins are a
//! superadmin's business, `/metrics` is for the operator only, and health
//! bodies carry no dependency's error text. Also: other users' contacts and
//! profiles stay out of reach.

use std::net::SocketAddr;
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use async_trait::async_trait;
use postgres_toolkit::bus::{DeliveryObserver, RedisStreamsBus, RetryPolicy, StreamSettings};
use postgres_toolkit::kv::RedisStore;
use serde_json::{json, Value};
use shared_kernel::ports::{EventBus, HealthStatus, KeyValueStore};
use shared_kernel::EventEnvelope;
use tally_tests::{bearer, call, login, register, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD, STAFF_ROLE_ID};
use uuid::Uuid;

const CONTACTS: &str = "/api/v1/identity/contacts";
const PROFILES: &str = "/api/v1/identity/profiles";
const USERS: &str = "/api/v1/identity/users";
const SUPERADMIN_ROLE_ID: &str = "01900000-0000-7000-8000-000000000001";
const ADMIN_ROLE_ID: &str = "01900000-0000-7000-8000-000000000002";

fn post(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::post().uri(uri).insert_header(bearer(token)).set_json(body)
}

fn put(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::put().uri(uri).insert_header(bearer(token)).set_json(body)
}

fn patch(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::patch().uri(uri).insert_header(bearer(token)).set_json(body)
}

fn get(uri: &str, token: &str) -> TestRequest {
    TestRequest::get().uri(uri).insert_header(bearer(token))
}

fn delete(uri: &str, token: &str) -> TestRequest {
    TestRequest::delete().uri(uri).insert_header(bearer(token))
}

fn id_of(body: &Value) -> String {
    body["data"]["id"].as_str().expect("an id").to_owned()
}

fn error_code(body: &Value) -> Option<&str> {
    body["error"]["code"].as_str()
}

fn peer(addr: &str) -> SocketAddr {
    addr.parse().expect("addr")
}

// ---------------------------------------------------------------- contacts

#[actix_web::test]
async fn changing_a_contact_value_clears_its_verification_and_nothing_else_does() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, token) = register(&app, "ann@example.com", "password-1").await;

    let (status, _, body) =
        call(&app, post(CONTACTS, &token, json!({"type": "email", "email": "ann@home.example"}))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let email = format!("{CONTACTS}/{}", id_of(&body));
    let (status, _, body) = call(&app, post(&format!("{email}/verify"), &token, json!({}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["contact"]["is_verified"], true);

    // Label, primary and visibility alone keep the verification...
    let flags = json!({"label": "home", "is_primary": true, "is_public": true});
    let (status, _, body) = call(&app, put(&email, &token, flags)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!((body["data"]["is_verified"].as_bool(), body["data"]["label"].as_str()), (Some(true), Some("home")));
    // ...and so does the stored value sent again (it normalises the same).
    let (status, _, body) = call(&app, put(&email, &token, json!({"email": " Ann@Home.Example "}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["is_verified"], true, "the same value is no change");

    // A new value is not the one that was verified.
    let (status, _, body) = call(&app, put(&email, &token, json!({"email": "ann@new.example", "label": "new"}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let data = &body["data"];
    assert_eq!((data["email"].as_str(), data["is_verified"].as_bool()), (Some("ann@new.example"), Some(false)));
    assert_eq!((data["is_primary"].as_bool(), data["is_public"].as_bool()), (Some(true), Some(true)));
    let (_, _, body) = call(&app, get(&email, &token)).await;
    assert_eq!(body["data"]["is_verified"], false, "stored, not only answered");

    // Phones and addresses alike.
    let (status, _, body) =
        call(&app, post(CONTACTS, &token, json!({"type": "phone", "phone": "+380 44 123 4567"}))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let phone = format!("{CONTACTS}/{}", id_of(&body));
    let _ = call(&app, put(&format!("{phone}/verify"), &token, json!({}))).await;
    let (_, _, body) = call(&app, put(&phone, &token, json!({"phone": "+380441234567"}))).await;
    assert_eq!(body["data"]["is_verified"], true, "the same number in another spelling");
    let (_, _, body) = call(&app, put(&phone, &token, json!({"phone": "+380441234568"}))).await;
    assert_eq!(body["data"]["is_verified"], false);

    let address = json!({"city": "Kyiv", "country": "UA"});
    let (status, _, body) =
        call(&app, post(CONTACTS, &token, json!({"type": "address", "address": address.clone()}))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let home = format!("{CONTACTS}/{}", id_of(&body));
    let _ = call(&app, put(&format!("{home}/verify"), &token, json!({}))).await;
    let (_, _, body) = call(&app, put(&home, &token, json!({"address": address, "is_public": true}))).await;
    assert_eq!(body["data"]["is_verified"], true);
    let moved = json!({"address": {"city": "Lviv", "country": "UA"}});
    let (_, _, body) = call(&app, put(&home, &token, moved)).await;
    assert_eq!(
        (body["data"]["address"]["city"].as_str(), body["data"]["is_verified"].as_bool()),
        (Some("Lviv"), Some(false))
    );
    t.stop().await;
}

#[actix_web::test]
async fn another_users_contacts_are_404_for_every_method() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, ann) = register(&app, "ann@example.com", "password-1").await;
    let (_, bob) = register(&app, "bob@example.com", "password-1").await;
    let (_, _, body) = call(&app, post(CONTACTS, &ann, json!({"type": "email", "email": "ann@home.example"}))).await;
    let contact = format!("{CONTACTS}/{}", id_of(&body));

    for (what, request) in [
        ("get", get(&contact, &bob)),
        ("put", put(&contact, &bob, json!({"email": "bob@steal.example"}))),
        ("verify", post(&format!("{contact}/verify"), &bob, json!({}))),
        ("verify (put)", put(&format!("{contact}/verify"), &bob, json!({}))),
        ("primary", put(&format!("{contact}/primary"), &bob, json!({}))),
        ("delete", delete(&contact, &bob)),
    ] {
        let (status, _, body) = call(&app, request).await;
        assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, Some("NOT_FOUND")), "{what}: {body}");
    }
    let (_, _, body) = call(&app, get(CONTACTS, &bob)).await;
    assert_eq!(body["data"].as_array().map(Vec::len), Some(0), "not listed either");
    let (_, _, body) = call(&app, get(&contact, &ann)).await;
    let data = &body["data"];
    assert_eq!((data["email"].as_str(), data["is_verified"].as_bool()), (Some("ann@home.example"), Some(false)));
    t.stop().await;
}

// ---------------------------------------------------------------- profiles

#[actix_web::test]
async fn a_banned_profile_stays_banned_after_its_deletion() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (_, ann) = register(&app, "ann@example.com", "password-1").await;
    let (status, _, body) = call(&app, post(PROFILES, &ann, json!({"display_name": "Ann", "is_public": true}))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let profile = format!("{PROFILES}/{}", id_of(&body));

    let (status, _, body) = call(&app, put(&format!("{profile}/ban"), &admin, json!({}))).await;
    assert_eq!((status, body["data"]["is_banned"].as_bool()), (StatusCode::OK, Some(true)), "{body}");

    // While the banned profile lives, a second one is simply a duplicate.
    let (status, _, body) = call(&app, post(PROFILES, &ann, json!({"display_name": "Ann again"}))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::CONFLICT, Some("ALREADY_EXISTS")), "{body}");

    // Deleting it is allowed; replacing it is not.
    let (status, _, body) = call(&app, delete(&profile, &ann)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    for attempt in ["Ann again", "Totally Not Ann"] {
        let (status, _, body) = call(&app, post(PROFILES, &ann, json!({"display_name": attempt}))).await;
        assert_eq!((status, error_code(&body)), (StatusCode::CONFLICT, Some("PROFILE_BANNED")), "{body}");
        assert_eq!(body["status"], "error");
    }
    let (status, _, _) = call(&app, get(&format!("{PROFILES}/me"), &ann)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "nothing was created");
    let (_, _, body) = call(&app, TestRequest::get().uri("/api/v1/identity/public/profiles")).await;
    assert_eq!(body["data"].as_array().map(Vec::len), Some(0), "nothing new is listed: {body}");

    // Someone else, and an unbanned delete-and-recreate, are unaffected.
    let (_, bob) = register(&app, "bob@example.com", "password-1").await;
    let (status, _, body) = call(&app, post(PROFILES, &bob, json!({"display_name": "Bob"}))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let (status, _, _) = call(&app, delete(&format!("{PROFILES}/{}", id_of(&body)), &bob)).await;
    assert_eq!(status, StatusCode::NO_CONTENT);
    let (status, _, body) = call(&app, post(PROFILES, &bob, json!({"display_name": "Bob 2"}))).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    t.stop().await;
}

#[actix_web::test]
async fn another_users_profile_is_hidden_when_private_and_never_changeable() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, ann) = register(&app, "ann@example.com", "password-1").await;
    let (_, bob) = register(&app, "bob@example.com", "password-1").await;
    let (_, _, body) = call(&app, post(PROFILES, &ann, json!({"display_name": "Ann"}))).await;
    let profile = format!("{PROFILES}/{}", id_of(&body));

    let (status, _, body) = call(&app, get(&profile, &bob)).await;
    assert_eq!((status, error_code(&body)), (StatusCode::NOT_FOUND, Some("NOT_FOUND")), "private: {body}");
    for (what, request) in [
        ("put", put(&profile, &bob, json!({"display_name": "Hacked"}))),
        ("visibility", put(&format!("{profile}/visibility"), &bob, json!({"is_public": true}))),
        ("delete", delete(&profile, &bob)),
    ] {
        let (status, _, body) = call(&app, request).await;
        assert_eq!((status, error_code(&body)), (StatusCode::FORBIDDEN, Some("FORBIDDEN")), "{what}: {body}");
    }
    let (_, _, body) = call(&app, get(&profile, &ann)).await;
    assert_eq!(
        (body["data"]["display_name"].as_str(), body["data"]["is_public"].as_bool()),
        (Some("Ann"), Some(false))
    );

    let (status, _, _) = call(&app, put(&format!("{profile}/visibility"), &ann, json!({"is_public": true}))).await;
    assert_eq!(status, StatusCode::OK);
    let (status, _, _) = call(&app, get(&profile, &bob)).await;
    assert_eq!(status, StatusCode::OK, "public now");
    let (status, _, _) = call(&app, put(&profile, &bob, json!({"display_name": "Hacked"}))).await;
    assert_eq!(status, StatusCode::FORBIDDEN, "readable is not writable");
    t.stop().await;
}

// ---------------------------------------------------------------- superadmin

async fn roles_of<S, B>(app: &S, token: &str, user: Uuid) -> Vec<String>
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let (status, _, body) = call(app, get(&format!("{USERS}/{user}/roles"), token)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let mut names: Vec<String> =
        body["data"].as_array().expect("roles").iter().filter_map(|r| r["name"].as_str().map(str::to_owned)).collect();
    names.sort();
    names
}

#[actix_web::test]
async fn only_a_superadmin_grants_removes_or_acts_on_superadmin() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let root = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (_, _, me) = call(&app, get(&format!("{USERS}/me"), &root)).await;
    let root_id: Uuid = me["data"]["id"].as_str().and_then(|s| s.parse().ok()).expect("id");

    // An admin who is not a superadmin.
    let (admin_id, admin) = register(&app, "plain-admin@example.com", "password-1").await;
    let (status, _, body) =
        call(&app, post(&format!("{USERS}/{admin_id}/roles"), &root, json!({"role_id": ADMIN_ROLE_ID}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (user_id, _) = register(&app, "someone@example.com", "password-1").await;

    let roots_before = roles_of(&app, &root, root_id).await;
    let forbidden: Vec<(&str, TestRequest)> = vec![
        (
            "grant superadmin to a user",
            post(&format!("{USERS}/{user_id}/roles"), &admin, json!({"role_id": SUPERADMIN_ROLE_ID})),
        ),
        (
            "grant superadmin to oneself",
            post(&format!("{USERS}/{admin_id}/roles"), &admin, json!({"role_id": SUPERADMIN_ROLE_ID})),
        ),
        ("remove superadmin", delete(&format!("{USERS}/{root_id}/roles/{SUPERADMIN_ROLE_ID}"), &admin)),
        ("remove a superadmin's admin role", delete(&format!("{USERS}/{root_id}/roles/{ADMIN_ROLE_ID}"), &admin)),
        (
            "grant a superadmin another role",
            post(&format!("{USERS}/{root_id}/roles"), &admin, json!({"role_id": STAFF_ROLE_ID})),
        ),
        ("suspend a superadmin", put(&format!("{USERS}/{root_id}/suspend"), &admin, json!({"reason": "coup"}))),
        ("ban a superadmin", put(&format!("{USERS}/{root_id}/ban"), &admin, json!({}))),
        (
            "patch a superadmin's status",
            patch(&format!("{USERS}/{root_id}/status"), &admin, json!({"status": "banned"})),
        ),
    ];
    for (what, request) in forbidden {
        let (status, _, body) = call(&app, request).await;
        assert_eq!((status, error_code(&body)), (StatusCode::FORBIDDEN, Some("FORBIDDEN")), "{what}: {body}");
    }
    // Nothing changed.
    let has = |roles: &[String], name: &str| roles.iter().any(|r| r == name);
    let roots = roles_of(&app, &root, root_id).await;
    assert_eq!(roots, roots_before);
    assert!(has(&roots, "superadmin") && has(&roots, "admin"), "{roots:?}");
    assert!(!has(&roles_of(&app, &root, admin_id).await, "superadmin"));
    assert!(!has(&roles_of(&app, &root, user_id).await, "superadmin"));
    let (status, _, body) = call(&app, get(&format!("{USERS}/me"), &root)).await;
    assert_eq!((status, body["data"]["status"].as_str()), (StatusCode::OK, Some("active")), "root's session lives");

    // Ordinary administration of ordinary users still works for the admin.
    let (status, _, body) =
        call(&app, post(&format!("{USERS}/{user_id}/roles"), &admin, json!({"role_id": STAFF_ROLE_ID}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, body) = call(&app, delete(&format!("{USERS}/{user_id}/roles/{STAFF_ROLE_ID}"), &admin)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let (status, _, body) = call(&app, put(&format!("{USERS}/{user_id}/suspend"), &admin, json!({}))).await;
    assert_eq!((status, body["data"]["status"].as_str()), (StatusCode::OK, Some("suspended")), "{body}");

    // A superadmin does all of it: promotes, acts on a superadmin, demotes.
    let (status, _, body) =
        call(&app, post(&format!("{USERS}/{user_id}/roles"), &root, json!({"role_id": SUPERADMIN_ROLE_ID}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // The new superadmin is out of the plain admin's reach at once.
    let (status, _, body) =
        call(&app, patch(&format!("{USERS}/{user_id}/status"), &admin, json!({"status": "active"}))).await;
    assert_eq!((status, error_code(&body)), (StatusCode::FORBIDDEN, Some("FORBIDDEN")), "{body}");
    let (status, _, body) =
        call(&app, patch(&format!("{USERS}/{user_id}/status"), &root, json!({"status": "active"}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, body) = call(&app, delete(&format!("{USERS}/{user_id}/roles/{SUPERADMIN_ROLE_ID}"), &root)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    let (status, _, body) = call(&app, put(&format!("{USERS}/{user_id}/ban"), &admin, json!({}))).await;
    assert_eq!((status, body["data"]["status"].as_str()), (StatusCode::OK, Some("banned")), "a user again: {body}");
    t.stop().await;
}

// ---------------------------------------------------------------- metrics

#[actix_web::test]
async fn without_a_metrics_token_only_loopback_peers_read_metrics() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    for local in ["127.0.0.1:40000", "127.1.2.3:40000", "[::1]:40000"] {
        let request = TestRequest::get().uri("/metrics").peer_addr(peer(local));
        let response = actix_web::test::call_service(&app, request.to_request()).await;
        assert_eq!(response.status(), StatusCode::OK, "{local}");
        let text = String::from_utf8(actix_web::test::read_body(response).await.to_vec()).expect("utf-8");
        assert!(text.contains("tally_db_pool_connections"), "{local}");
    }
    let remote = [
        ("no peer", TestRequest::get().uri("/metrics")),
        ("remote", TestRequest::get().uri("/metrics").peer_addr(peer("203.0.113.9:40000"))),
        ("private", TestRequest::get().uri("/metrics").peer_addr(peer("10.0.0.7:40000"))),
        (
            "relayed by a local proxy",
            TestRequest::get()
                .uri("/metrics")
                .peer_addr(peer("127.0.0.1:40000"))
                .insert_header(("X-Forwarded-For", "203.0.113.9")),
        ),
        (
            "a token nobody configured",
            TestRequest::get().uri("/metrics").peer_addr(peer("203.0.113.9:40000")).insert_header(bearer("guess")),
        ),
    ];
    for (what, request) in remote {
        let (status, _, body) = call(&app, request).await;
        assert_eq!((status, error_code(&body)), (StatusCode::FORBIDDEN, Some("FORBIDDEN")), "{what}: {body}");
        assert_eq!(body["status"], "error", "{what}: the usual envelope");
    }
    t.stop().await;
}

#[actix_web::test]
async fn with_a_metrics_token_only_its_bearer_reads_metrics() {
    let token = "metrics-token-for-tests-0123456789";
    let t = TestApp::start_with(TestOptions::default().with_env("METRICS_TOKEN", token)).await;
    let app = init_service(build_app(t.state.clone())).await;
    let refused = [
        ("loopback without a token", TestRequest::get().uri("/metrics").peer_addr(peer("127.0.0.1:40000"))),
        ("no peer, no token", TestRequest::get().uri("/metrics")),
        (
            "a wrong token",
            TestRequest::get()
                .uri("/metrics")
                .peer_addr(peer("127.0.0.1:40000"))
                .insert_header(bearer("metrics-token")),
        ),
        ("a longer token", TestRequest::get().uri("/metrics").insert_header(bearer(&format!("{token}0")))),
        (
            "another scheme",
            TestRequest::get().uri("/metrics").insert_header(("Authorization", format!("Basic {token}"))),
        ),
    ];
    for (what, request) in refused {
        let (status, headers, body) = call(&app, request).await;
        assert_eq!((status, error_code(&body)), (StatusCode::UNAUTHORIZED, Some("UNAUTHORIZED")), "{what}: {body}");
        assert_eq!(body["status"], "error");
        assert!(headers.contains_key("www-authenticate"), "{what}");
        assert!(!body.to_string().contains(token), "{what}: the token never echoes");
    }
    for from in ["203.0.113.9:40000", "127.0.0.1:40000"] {
        let request = TestRequest::get().uri("/metrics").peer_addr(peer(from)).insert_header(bearer(token));
        let response = actix_web::test::call_service(&app, request.to_request()).await;
        assert_eq!(response.status(), StatusCode::OK, "{from}");
    }
    t.stop().await;
}

// ---------------------------------------------------------------- health

struct NoObserver;

#[async_trait]
impl DeliveryObserver for NoObserver {
    async fn dead_letter(&self, _: &EventEnvelope, _: &str, _: &str, _: u32) {}
    async fn completed(&self, _: Uuid) {}
}

#[actix_web::test]
async fn redis_health_says_unreachable_without_the_cause() {
    // Nothing listens on port 1.
    let dead = "redis://127.0.0.1:1/";
    let store = RedisStore::new(dead, "tally-test:dead").expect("lazy store");
    let check = store.health().await;
    assert_eq!(check.status, HealthStatus::Unhealthy);
    assert_eq!(check.message, "redis key-value store unreachable");

    let bus = RedisStreamsBus::new(
        dead,
        StreamSettings::new("tally-test:dead"),
        RetryPolicy::default(),
        Arc::new(NoObserver),
    )
    .expect("lazy bus");
    let check = bus.health().await;
    assert_eq!(check.status, HealthStatus::Unhealthy);
    assert_eq!(check.message, "redis streams bus unreachable");
}
