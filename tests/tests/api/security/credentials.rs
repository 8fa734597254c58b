//! Credentials are never kept or replayed (docs/identity.md): credential routes ignore
//! `Idempotency-Key`, no kept answer holds a working secret, a key needs the password, a
//! password change ends the keys, and a superadmin's credentials, profile and role are a
//! superadmin's business.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{bearer, call, login, register, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use super::api_keys::new_key;
use crate::commerce_support::scalar;

const KEYS: &str = "/api/v1/identity/api-keys";
const CUSTOMERS: &str = "/api/v1/customer-mgmt/customers";
const USERS: &str = "/api/v1/identity/users";
const ROLES: &str = "/api/v1/identity/roles";
const PROFILES: &str = "/api/v1/identity/profiles";
const SUPERADMIN_ROLE_ID: &str = "01900000-0000-7000-8000-000000000001";
const ADMIN_ROLE_ID: &str = "01900000-0000-7000-8000-000000000002";

fn post(uri: &str, body: Value) -> TestRequest {
    TestRequest::post().uri(uri).set_json(body)
}

fn authed(request: TestRequest, token: &str) -> TestRequest {
    request.insert_header(bearer(token))
}

fn keyed(request: TestRequest, key: &str) -> TestRequest {
    request.insert_header(("Idempotency-Key", key.to_owned()))
}

fn get(uri: &str, token: &str) -> TestRequest {
    TestRequest::get().uri(uri).insert_header(bearer(token))
}

fn put(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::put().uri(uri).insert_header(bearer(token)).set_json(body)
}

fn delete(uri: &str, token: &str) -> TestRequest {
    TestRequest::delete().uri(uri).insert_header(bearer(token))
}

fn code(body: &Value) -> Option<&str> {
    body["error"]["code"].as_str()
}

fn replayed(headers: &actix_web::http::header::HeaderMap) -> bool {
    headers.get("idempotent-replayed").is_some()
}

fn tokens_of(body: &Value) -> (String, String) {
    let data = &body["data"];
    let access = data["access_token"].as_str().unwrap_or_else(|| panic!("no access token in {body}"));
    (access.to_owned(), data["refresh_token"].as_str().expect("refresh").to_owned())
}

fn me(token: &str) -> TestRequest {
    get(&format!("{USERS}/me"), token)
}

/// Rows of the idempotency table whose kept answer holds `needle`.
async fn kept_with(t: &TestApp, needle: &str) -> i64 {
    let sql = format!(
        "SELECT count(*) AS n FROM idempotency_keys WHERE position(convert_to('{needle}', 'UTF8') IN body) > 0"
    );
    scalar(&t.state.pool, &sql).await
}

#[actix_web::test]
async fn register_login_and_refresh_run_again_on_a_retry_with_the_same_key() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let register_body = json!({"email": "retry@example.com", "name": "Retry", "password": "password-1"});
    let (status, headers, first) =
        call(&app, keyed(post("/api/v1/identity/users/register", register_body.clone()), "reg-1")).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::CREATED, false), "{first}");
    // Run again, not replayed: the account exists now.
    let (status, headers, again) =
        call(&app, keyed(post("/api/v1/identity/users/register", register_body), "reg-1")).await;
    assert_eq!((status, code(&again), replayed(&headers)), (StatusCode::CONFLICT, Some("EMAIL_ALREADY_EXISTS"), false));

    // A login retried with its key gets a fresh pair of its own.
    let login_body = json!({"email": "retry@example.com", "password": "password-1"});
    let login = || keyed(post("/api/v1/identity/users/login", login_body.clone()), "login-1");
    let (status, headers, first) = call(&app, login()).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::OK, false), "{first}");
    let (status, headers, second) = call(&app, login()).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::OK, false), "{second}");
    let (first_access, first_refresh) = tokens_of(&first);
    let (second_access, _) = tokens_of(&second);
    assert_ne!(first_access, second_access, "a new session, not a copy of the first");
    assert_eq!(call(&app, me(&second_access)).await.0, StatusCode::OK);

    // A refresh retried with its key presents a spent token: 401, and the family ends.
    let refresh = || keyed(post("/api/v1/identity/auth/refresh", json!({"refresh_token": first_refresh})), "ref-1");
    let (status, headers, rotated) = call(&app, refresh()).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::OK, false), "{rotated}");
    let (rotated_access, rotated_refresh) = tokens_of(&rotated);
    let (status, headers, body) = call(&app, refresh()).await;
    assert_eq!((status, code(&body), replayed(&headers)), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED"), false));
    for (what, request) in [
        ("the pair the first refresh issued", me(&rotated_access)),
        (
            "the refresh token it issued",
            post("/api/v1/identity/auth/refresh", json!({"refresh_token": rotated_refresh})),
        ),
        ("the login's own access token", me(&first_access)),
    ] {
        let (status, _, body) = call(&app, request).await;
        assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")), "{what}: {body}");
    }
    // The other login's session lives on.
    assert_eq!(call(&app, me(&second_access)).await.0, StatusCode::OK);

    // Nothing of these answers was kept: no row, and no token anywhere in the table.
    let public = scalar(&t.state.pool, "SELECT count(*) AS n FROM idempotency_keys WHERE scope = 'public'").await;
    assert_eq!(public, 0, "credential routes keep no answer");
    for needle in ["access_token", "refresh_token", "eyJ", &first_access, &second_access, &rotated_refresh] {
        assert_eq!(kept_with(&t, needle).await, 0, "{needle} is kept nowhere");
    }
    t.stop().await;
}

#[actix_web::test]
async fn a_replayed_key_or_webhook_answer_shows_no_working_secret() {
    let t = TestApp::start_with(crate::webhooks::options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    // An API key: the retry learns the key was made, not the key.
    let make = || {
        let body = json!({"name": "ci", "permissions": ["customers:read"], "current_password": ADMIN_PASSWORD});
        keyed(authed(post(KEYS, body), &admin), "key-once")
    };
    let (status, _, made) = call(&app, make()).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let key = made["data"]["key"].as_str().expect("shown once").to_owned();
    let (status, headers, again) = call(&app, make()).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::CREATED, true), "{again}");
    assert!(again["data"].get("key").is_none() && again["data"]["id"] == made["data"]["id"], "{again}");

    // A webhook's secret, on creation and on rotation.
    let create = || {
        let body = json!({"url": "https://hooks.example.com/ci", "events": ["customer.*"]});
        keyed(authed(post("/api/v1/webhooks", body), &admin), "hook-once")
    };
    let (status, _, created) = call(&app, create()).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let secret = created["data"]["secret"].as_str().expect("shown on creation").to_owned();
    let id = created["data"]["id"].as_str().expect("id").to_owned();
    let (status, headers, again) = call(&app, create()).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::CREATED, true), "{again}");
    assert!(again["data"].get("secret").is_none() && again["data"]["id"] == created["data"]["id"], "{again}");
    let rotate = || keyed(authed(post(&format!("/api/v1/webhooks/{id}/rotate-secret"), json!({})), &admin), "rot-1");
    let (status, _, rotated) = call(&app, rotate()).await;
    assert_eq!(status, StatusCode::OK, "{rotated}");
    let rotated_secret = rotated["data"]["secret"].as_str().expect("shown on rotation").to_owned();
    assert_ne!(rotated_secret, secret);
    let (status, headers, again) = call(&app, rotate()).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::OK, true), "{again}");
    assert!(again["data"].get("secret").is_none(), "{again}");

    // The table holds the three answers, and none of the secrets in any form.
    let kept = scalar(
        &t.state.pool,
        "SELECT count(*) AS n FROM idempotency_keys WHERE key IN ('key-once', 'hook-once', 'rot-1')",
    );
    assert_eq!(kept.await, 3);
    for needle in [&key[..], &key[4..], &secret, &rotated_secret, "whsec_", "\"key\"", "\"secret\""] {
        assert_eq!(kept_with(&t, needle).await, 0, "{needle} is kept nowhere");
    }
    t.stop().await;
}

#[actix_web::test]
async fn making_an_api_key_asks_for_the_current_password() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, staff) = register_staff(&app, "maker@example.com", "password-123").await;
    let body = |password: Option<&str>| {
        let mut body = json!({"name": "k", "permissions": ["customers:read"]});
        if let Some(password) = password {
            body["current_password"] = json!(password);
        }
        authed(post(KEYS, body), &staff)
    };
    for (what, request) in [("missing", body(None)), ("empty", body(Some("")))] {
        let (status, _, refused) = call(&app, request).await;
        assert_eq!((status, code(&refused)), (StatusCode::BAD_REQUEST, Some("VALIDATION_ERROR")), "{what}: {refused}");
        assert!(refused["error"]["details"]["current_password"].is_string(), "{what}: {refused}");
    }
    let (status, _, refused) = call(&app, body(Some("not-my-password"))).await;
    assert_eq!((status, code(&refused)), (StatusCode::UNAUTHORIZED, Some("INVALID_CREDENTIALS")), "{refused}");
    let (_, _, listed) = call(&app, get(KEYS, &staff)).await;
    assert_eq!(listed["pagination"]["total"], 0, "no key was made: {listed}");
    // A wrong password counts toward the lock-out, as a login's does.
    let failures =
        scalar(&t.state.pool, "SELECT failed_login_count::bigint AS n FROM users WHERE email = 'maker@example.com'");
    assert_eq!(failures.await, 1);

    let (status, _, made) = call(&app, body(Some("password-123"))).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let key = made["data"]["key"].as_str().expect("key");
    assert_eq!(call(&app, get(CUSTOMERS, key)).await.0, StatusCode::OK);
    // The contract says so.
    let (_, _, doc) = call(&app, TestRequest::get().uri("/api/v1/openapi.json")).await;
    let schema = &doc["components"]["schemas"]["CreateApiKeyBody"];
    assert!(schema["properties"]["current_password"].is_object(), "{schema}");
    assert!(schema["required"].as_array().is_some_and(|r| r.contains(&json!("current_password"))), "{schema}");
    t.stop().await;
}

#[actix_web::test]
async fn a_password_change_revokes_the_callers_keys_unless_kept() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, staff) = register_staff(&app, "changer@example.com", "password-123").await;
    let (_, other) = register_staff(&app, "bystander@example.com", "password-123").await;
    let (_, first_key) = new_key(&app, &staff, "password-123", &["customers:read"]).await;
    let (_, others_key) = new_key(&app, &other, "password-123", &["customers:read"]).await;
    assert_eq!(call(&app, get(CUSTOMERS, &first_key)).await.0, StatusCode::OK);

    let change = |token: &str, from: &str, to: &str, keep: Option<bool>| {
        let mut body = json!({"current_password": from, "new_password": to});
        if let Some(keep) = keep {
            body["keep_api_keys"] = json!(keep);
        }
        put(&format!("{USERS}/me/password"), token, body)
    };
    let (status, _, body) = call(&app, change(&staff, "password-123", "password-456", None)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, body) = call(&app, get(CUSTOMERS, &first_key)).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")), "{body}");
    assert_eq!(call(&app, get(CUSTOMERS, &others_key)).await.0, StatusCode::OK, "other people's keys live on");

    // Kept when asked.
    let staff = login(&app, "changer@example.com", "password-456").await;
    let (_, kept_key) = new_key(&app, &staff, "password-456", &["customers:read"]).await;
    let (status, _, body) = call(&app, change(&staff, "password-456", "password-789", Some(true))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(call(&app, get(CUSTOMERS, &kept_key)).await.0, StatusCode::OK, "keep_api_keys keeps them");
    let (status, _, body) = call(&app, me(&staff)).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, Some("TOKEN_REVOKED")), "tokens end all the same");
    // A wrong current password changes nothing at all.
    let staff = login(&app, "changer@example.com", "password-789").await;
    let (status, _, _) = call(&app, change(&staff, "wrong-password", "password-000", Some(false))).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(call(&app, get(CUSTOMERS, &kept_key)).await.0, StatusCode::OK);
    t.stop().await;
}

/// A full login: (access, refresh).
async fn session<S, B>(app: &S, email: &str, password: &str) -> (String, String)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let (status, _, body) =
        call(app, post("/api/v1/identity/users/login", json!({"email": email, "password": password}))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    tokens_of(&body)
}

#[actix_web::test]
async fn a_superadmins_tokens_keys_profile_and_role_are_out_of_an_admins_reach() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let root = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let root_id = crate::crm_support::admin_id(&t).await;
    let (root_access, root_refresh) = session(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (root_key_id, root_key) = new_key(&app, &root, ADMIN_PASSWORD, &["customers:read"]).await;
    let (status, _, profile) = call(&app, authed(post(PROFILES, json!({"display_name": "Root"})), &root)).await;
    assert_eq!(status, StatusCode::CREATED, "{profile}");
    let root_profile = profile["data"]["id"].as_str().expect("profile id").to_owned();

    // An admin who is not a superadmin, and an ordinary user to compare with.
    let (admin_id, _) = register(&app, "plain-admin@example.com", "password-1").await;
    let grant = authed(post(&format!("{USERS}/{admin_id}/roles"), json!({"role_id": ADMIN_ROLE_ID})), &root);
    assert_eq!(call(&app, grant).await.0, StatusCode::OK);
    let admin = login(&app, "plain-admin@example.com", "password-1").await;
    let (user_id, user) = register_staff(&app, "ordinary@example.com", "password-1").await;

    let permission = |name: &str| get(&format!("/api/v1/identity/permissions/name/{name}"), &root);
    let (_, _, read) = call(&app, permission("customers:read")).await;
    let read_id = read["data"]["id"].as_str().expect("permission id").to_owned();
    let (_, _, all) = call(&app, permission("*:*")).await;
    let all_id = all["data"]["id"].as_str().expect("permission id").to_owned();
    let superadmin_permissions = format!("{ROLES}/{SUPERADMIN_ROLE_ID}/permissions");
    let (_, _, before) = call(&app, get(&superadmin_permissions, &root)).await;

    let forbidden: Vec<(&str, TestRequest)> = vec![
        (
            "grant the superadmin role a permission",
            authed(post(&superadmin_permissions, json!({"permission_ids": [read_id]})), &admin),
        ),
        ("take a permission from the superadmin role", delete(&format!("{superadmin_permissions}/{all_id}"), &admin)),
        (
            "edit the superadmin role",
            put(&format!("{ROLES}/{SUPERADMIN_ROLE_ID}"), &admin, json!({"description": "x"})),
        ),
        (
            "revoke a superadmin's refresh token",
            authed(post("/api/v1/identity/auth/revoke", json!({"token": root_refresh})), &admin),
        ),
        (
            "revoke a superadmin's access token",
            authed(post("/api/v1/identity/auth/revoke", json!({"token": root_access})), &admin),
        ),
        ("revoke a superadmin's API key", delete(&format!("{KEYS}/{root_key_id}"), &admin)),
        ("unlock a superadmin", authed(post(&format!("{USERS}/{root_id}/unlock"), json!({})), &admin)),
        ("ban a superadmin's profile", put(&format!("{PROFILES}/{root_profile}/ban"), &admin, json!({}))),
        ("verify a superadmin's profile", put(&format!("{PROFILES}/{root_profile}/verify"), &admin, json!({}))),
    ];
    for (what, request) in forbidden {
        let (status, _, body) = call(&app, request).await;
        assert_eq!((status, code(&body)), (StatusCode::FORBIDDEN, Some("FORBIDDEN")), "{what}: {body}");
    }
    // Nothing changed.
    let (_, _, after) = call(&app, get(&superadmin_permissions, &root)).await;
    assert_eq!(after["data"], before["data"]);
    assert_eq!(call(&app, me(&root_access)).await.0, StatusCode::OK, "the access token works");
    let (status, _, body) =
        call(&app, post("/api/v1/identity/auth/refresh", json!({"refresh_token": root_refresh.clone()}))).await;
    assert_eq!(status, StatusCode::OK, "the refresh token works: {body}");
    assert_eq!(call(&app, get(CUSTOMERS, &root_key)).await.0, StatusCode::OK, "the key works");
    let (_, _, profile) = call(&app, get(&format!("{PROFILES}/me"), &root)).await;
    assert_eq!(
        (profile["data"]["is_banned"].as_bool(), profile["data"]["is_verified"].as_bool()),
        (Some(false), Some(false))
    );

    // The same admin does all of it to an ordinary user.
    let (_, user_refresh) = session(&app, "ordinary@example.com", "password-1").await;
    let (user_key_id, user_key) = new_key(&app, &user, "password-1", &["customers:read"]).await;
    let (status, _, body) = call(&app, authed(post(PROFILES, json!({"display_name": "Ord"})), &user)).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    let user_profile = body["data"]["id"].as_str().expect("profile id").to_owned();
    let allowed: Vec<(&str, TestRequest)> = vec![
        ("revoke a user's token", authed(post("/api/v1/identity/auth/revoke", json!({"token": user_refresh})), &admin)),
        ("revoke a user's key", delete(&format!("{KEYS}/{user_key_id}"), &admin)),
        ("unlock a user", authed(post(&format!("{USERS}/{user_id}/unlock"), json!({})), &admin)),
        ("verify a user's profile", put(&format!("{PROFILES}/{user_profile}/verify"), &admin, json!({}))),
        ("ban a user's profile", put(&format!("{PROFILES}/{user_profile}/ban"), &admin, json!({}))),
        (
            "edit the staff role",
            put(&format!("{ROLES}/{}", tally_tests::STAFF_ROLE_ID), &admin, json!({"description": "Staff"})),
        ),
    ];
    for (what, request) in allowed {
        let (status, _, body) = call(&app, request).await;
        assert!(status.is_success(), "{what}: {status} {body}");
    }
    assert_eq!(call(&app, get(CUSTOMERS, &user_key)).await.0, StatusCode::UNAUTHORIZED);

    // A superadmin does it to a superadmin: the user, promoted, is out of the admin's reach now.
    let promote = authed(post(&format!("{USERS}/{user_id}/roles"), json!({"role_id": SUPERADMIN_ROLE_ID})), &root);
    assert_eq!(call(&app, promote).await.0, StatusCode::OK);
    let user = login(&app, "ordinary@example.com", "password-1").await;
    let (promoted_key_id, promoted_key) = new_key(&app, &user, "password-1", &["customers:read"]).await;
    let (status, _, _) = call(&app, delete(&format!("{KEYS}/{promoted_key_id}"), &admin)).await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    assert_eq!(call(&app, delete(&format!("{KEYS}/{promoted_key_id}"), &root)).await.0, StatusCode::NO_CONTENT);
    assert_eq!(call(&app, get(CUSTOMERS, &promoted_key)).await.0, StatusCode::UNAUTHORIZED);
    let (_, promoted_refresh) = session(&app, "ordinary@example.com", "password-1").await;
    let revoke = |token: &str| authed(post("/api/v1/identity/auth/revoke", json!({"token": promoted_refresh})), token);
    assert_eq!(call(&app, revoke(&admin)).await.0, StatusCode::FORBIDDEN);
    assert_eq!(call(&app, revoke(&root)).await.0, StatusCode::OK);
    let unlock = |token: &str| authed(post(&format!("{USERS}/{user_id}/unlock"), json!({})), token);
    assert_eq!(call(&app, unlock(&admin)).await.0, StatusCode::FORBIDDEN);
    assert_eq!(call(&app, unlock(&root)).await.0, StatusCode::OK);
    let verify = |token: &str| put(&format!("{PROFILES}/{user_profile}/verify"), token, json!({}));
    assert_eq!(call(&app, verify(&admin)).await.0, StatusCode::FORBIDDEN);
    assert_eq!(call(&app, verify(&root)).await.0, StatusCode::OK);
    // And changes the superadmin role's permissions.
    let (status, _, body) =
        call(&app, authed(post(&superadmin_permissions, json!({"permission_ids": [read_id]})), &root)).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, _, body) = call(&app, delete(&format!("{superadmin_permissions}/{read_id}"), &root)).await;
    assert_eq!(status, StatusCode::NO_CONTENT, "{body}");
    t.stop().await;
}
