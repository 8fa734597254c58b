//! API keys (docs/identity.md): scoped to what a service needs, stopped at once, never making keys.

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{bearer, call, login, register_staff, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};

const KEYS: &str = "/api/v1/identity/api-keys";
const CUSTOMERS: &str = "/api/v1/customer-mgmt/customers";

fn get(uri: &str, token: &str) -> TestRequest {
    TestRequest::get().uri(uri).insert_header(bearer(token))
}

fn post(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::post().uri(uri).insert_header(bearer(token)).set_json(body)
}

fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("")
}

/// Creates a key as `token`, whose password is `password`; returns (id, key).
pub(super) async fn new_key<S, B>(app: &S, token: &str, password: &str, permissions: &[&str]) -> (String, String)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    let body = json!({"name": "sync", "permissions": permissions, "current_password": password});
    let (status, _, created) = call(app, post(KEYS, token, body)).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let data = &created["data"];
    (data["id"].as_str().expect("id").to_owned(), data["key"].as_str().expect("key").to_owned())
}

#[actix_web::test]
async fn a_key_does_what_it_is_scoped_to_and_nothing_more() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (status, _, created) = call(
        &app,
        post(
            KEYS,
            &admin,
            json!({"name": " sync ", "permissions": ["customers:read"], "current_password": ADMIN_PASSWORD}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let key = created["data"]["key"].as_str().expect("key shown once").to_owned();
    assert!(key.starts_with("tly_") && key.len() == 68, "{key}");
    assert_eq!(created["data"]["prefix"].as_str(), Some(&key[..12]));
    assert_eq!(
        (created["data"]["name"].as_str(), created["data"]["permissions"].clone()),
        (Some("sync"), json!(["customers:read"]))
    );

    assert_eq!(call(&app, get(CUSTOMERS, &key)).await.0, StatusCode::OK, "what it is scoped to");
    let (status, _, refused) = call(&app, post(CUSTOMERS, &key, json!({"name": "X", "email": "x@example.com"}))).await;
    assert_eq!((status, code(&refused)), (StatusCode::FORBIDDEN, "FORBIDDEN"), "not what its admin owner may do");
    for uri in ["/api/v1/identity/users/me", "/api/v1/identity/roles", KEYS] {
        let (status, _, body) = call(&app, get(uri, &key)).await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{uri}: a person's or an administrator's operation: {body}");
    }
    let (status, _, _) = call(
        &app,
        post(
            KEYS,
            &key,
            json!({"name": "child", "permissions": ["customers:read"], "current_password": ADMIN_PASSWORD}),
        ),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN, "a key never makes keys");
    let (status, _, _) =
        call(&app, get(CUSTOMERS, "tly_0000000000000000000000000000000000000000000000000000000000000000")).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED, "an unknown key");

    // The list shows the key's prefix, never the key, and when it was last used.
    let (_, _, listed) = call(&app, get(KEYS, &admin)).await;
    let shown = &listed["data"][0];
    assert!(shown.get("key").is_none() && !listed.to_string().contains(&key), "{listed}");
    assert!(shown["last_used_at"].is_string(), "{shown}");
    let pool = t.state.pool.clone();
    let scalar = |sql: String| {
        let pool = pool.clone();
        async move { crate::commerce_support::scalar(&pool, &sql).await }
    };
    let hashed =
        scalar(format!("SELECT count(*) AS n FROM api_keys WHERE key_hash = sha256(convert_to('{key}', 'UTF8'))"));
    assert_eq!(hashed.await, 1, "its sha256 is stored");
    let anywhere = format!(
        "SELECT (SELECT count(*) FROM api_keys k WHERE k::text LIKE '%{secret}%') \
              + (SELECT count(*) FROM idempotency_keys i WHERE encode(i.body, 'escape') LIKE '%{secret}%') AS n",
        secret = &key[4..]
    );
    assert_eq!(scalar(anywhere).await, 0, "the key itself is stored nowhere");
    // Operations a key never does, whatever its permissions: a person's own business.
    let (status, _, _) = call(
        &app,
        TestRequest::delete()
            .uri(&format!("{KEYS}/{}", created["data"]["id"].as_str().expect("id")))
            .insert_header(bearer(&key)),
    )
    .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let password = TestRequest::put()
        .uri("/api/v1/identity/users/me/password")
        .insert_header(bearer(&key))
        .set_json(json!({"current_password": ADMIN_PASSWORD, "new_password": "another-password-1"}));
    assert_eq!(call(&app, password).await.0, StatusCode::FORBIDDEN);
    t.stop().await;
}

#[actix_web::test]
async fn a_key_holds_no_more_than_its_owner() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (staff_id, staff) = register_staff(&app, "staff@example.com", "password-123").await;
    for beyond in [json!(["roles:create"]), json!(["*:*"]), json!(["customers:read", "users:delete"])] {
        let body = json!({"name": "k", "permissions": beyond, "current_password": "password-123"});
        let (status, _, body) = call(&app, post(KEYS, &staff, body)).await;
        assert_eq!((status, code(&body)), (StatusCode::FORBIDDEN, "FORBIDDEN"), "{beyond}: {body}");
    }
    for (bad, field) in [
        (json!({"name": "k", "permissions": []}), "permissions"),
        (json!({"name": "k", "permissions": ["customers"]}), "permissions"),
        (json!({"name": "", "permissions": ["customers:read"]}), "name"),
        (json!({"name": "k", "permissions": ["customers:read"], "expires_at": "2020-01-01T00:00:00Z"}), "expires_at"),
    ] {
        let mut bad = bad;
        bad["current_password"] = json!("password-123");
        let (status, _, body) = call(&app, post(KEYS, &staff, bad.clone())).await;
        assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR"), "{bad}: {body}");
        assert!(body["error"]["details"][field].is_string(), "{field}: {body}");
    }
    let (_, key) = new_key(&app, &staff, "password-123", &["customers:read"]).await;
    assert_eq!(call(&app, get(CUSTOMERS, &key)).await.0, StatusCode::OK);
    // The owner's permissions are asked at every request: losing them narrows the key at once.
    crate::crm_support::strip_roles(&t, staff_id).await;
    assert_eq!(call(&app, get(CUSTOMERS, &key)).await.0, StatusCode::FORBIDDEN);
    // Other users' keys are not in a user's list; an administrator sees all.
    let (_, _, theirs) = call(&app, get(KEYS, &staff)).await;
    assert_eq!(theirs["pagination"]["total"], 1);
    new_key(&app, &admin, ADMIN_PASSWORD, &["orders:read"]).await;
    let (_, _, all) = call(&app, get(KEYS, &admin)).await;
    assert_eq!(all["pagination"]["total"], 2);
    let (_, _, mine) = call(&app, get(KEYS, &staff)).await;
    assert_eq!(mine["pagination"]["total"], 1);
    t.stop().await;
}

#[actix_web::test]
async fn revocation_expiry_and_a_suspended_owner_stop_a_key_at_once() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (staff_id, staff) = register_staff(&app, "staff@example.com", "password-123").await;
    let (id, key) = new_key(&app, &staff, "password-123", &["customers:read"]).await;
    assert_eq!(call(&app, get(CUSTOMERS, &key)).await.0, StatusCode::OK);
    // Another user cannot revoke it; its owner can.
    let (other_id, other) = register_staff(&app, "other@example.com", "password-123").await;
    let delete = |token: &str| TestRequest::delete().uri(&format!("{KEYS}/{id}")).insert_header(bearer(token));
    assert_eq!(call(&app, delete(&other)).await.0, StatusCode::NOT_FOUND);
    assert_eq!(call(&app, get(CUSTOMERS, &key)).await.0, StatusCode::OK);
    assert_eq!(call(&app, delete(&staff)).await.0, StatusCode::NO_CONTENT);
    let (status, _, body) = call(&app, get(CUSTOMERS, &key)).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, "TOKEN_REVOKED"));
    assert_eq!(call(&app, delete(&staff)).await.0, StatusCode::NO_CONTENT, "revoking again changes nothing");

    // Expired.
    let (expiring, key) = new_key(&app, &other, "password-123", &["customers:read"]).await;
    let past = format!(
        "UPDATE api_keys SET created_at = now() - interval '2 days', expires_at = now() - interval '1 day' \
         WHERE id = '{expiring}'"
    );
    crate::commerce_support::scalar(
        &t.state.pool,
        &format!("WITH u AS ({past} RETURNING 1) SELECT count(*) AS n FROM u"),
    )
    .await;
    let (status, _, body) = call(&app, get(CUSTOMERS, &key)).await;
    assert_eq!((status, code(&body)), (StatusCode::UNAUTHORIZED, "TOKEN_EXPIRED"));

    // The owner suspended: their keys stop with their tokens.
    let (_, key) = new_key(&app, &other, "password-123", &["customers:read"]).await;
    assert_eq!(call(&app, get(CUSTOMERS, &key)).await.0, StatusCode::OK);
    let suspend = TestRequest::put()
        .uri(&format!("/api/v1/identity/users/{other_id}/suspend"))
        .insert_header(bearer(&admin))
        .set_json(json!({"reason": "audit"}));
    assert_eq!(call(&app, suspend).await.0, StatusCode::OK);
    assert_eq!(call(&app, get(CUSTOMERS, &key)).await.0, StatusCode::UNAUTHORIZED);
    assert_eq!(call(&app, get(CUSTOMERS, &staff)).await.0, StatusCode::OK, "other people's keys are unaffected");
    let _ = staff_id;
    t.stop().await;
}

#[actix_web::test]
async fn keys_are_rate_limited_per_key() {
    let t = TestApp::start_with(TestOptions::default().with_env("RATE_LIMIT_ENABLED", "true")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (_, first) = new_key(&app, &admin, ADMIN_PASSWORD, &["customers:read"]).await;
    let (_, second) = new_key(&app, &admin, ADMIN_PASSWORD, &["customers:read"]).await;
    // A key is counted against its sender's address first (docs/bounded-work.md), then its own bucket.
    let from = |request: TestRequest, ip: &str| request.peer_addr(format!("{ip}:40000").parse().expect("addr"));
    let mut limited = None;
    for n in 0..150 {
        let (status, _, _) = call(&app, from(get(CUSTOMERS, &first), "203.0.113.1")).await;
        if status == StatusCode::TOO_MANY_REQUESTS {
            limited = Some(n);
            break;
        }
        assert_eq!(status, StatusCode::OK);
    }
    assert_eq!(limited, Some(100), "the authenticated budget, for this address and key");
    let second_from_there = call(&app, from(get(CUSTOMERS, &second), "203.0.113.1")).await.0;
    assert_eq!(second_from_there, StatusCode::TOO_MANY_REQUESTS, "the address has spent its budget");
    let first_elsewhere = call(&app, from(get(CUSTOMERS, &first), "203.0.113.2")).await.0;
    assert_eq!(first_elsewhere, StatusCode::TOO_MANY_REQUESTS, "so has the key, wherever it comes from");
    let second_elsewhere = call(&app, from(get(CUSTOMERS, &second), "203.0.113.2")).await.0;
    assert_eq!(second_elsewhere, StatusCode::OK, "another key from another address has its own budget");
    let person = call(&app, from(get(CUSTOMERS, &admin), "203.0.113.3")).await.0;
    assert_eq!(person, StatusCode::OK, "so has the person");
    // Keys that do not authenticate are charged to their sender's address before any look-up.
    let mut refused = None;
    for n in 0..150 {
        let guess = format!("tly_{n:064x}");
        let (status, _, _) = call(&app, from(get(CUSTOMERS, &guess), "203.0.113.4")).await;
        if status == StatusCode::TOO_MANY_REQUESTS {
            refused = Some(n);
            break;
        }
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
    assert!(refused.is_some_and(|n| n <= 100), "guessing is limited: {refused:?}");
    t.stop().await;
}

#[actix_web::test]
async fn a_key_scopes_idempotency_keys_of_its_own() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (_, key) = new_key(&app, &admin, ADMIN_PASSWORD, &["customers:create"]).await;
    let create = |token: &str, email: &str| {
        post(CUSTOMERS, token, json!({"name": "K", "email": email})).insert_header(("Idempotency-Key", "same"))
    };
    let (status, _, first) = call(&app, create(&key, "k@example.com")).await;
    assert_eq!(status, StatusCode::CREATED, "{first}");
    let (status, headers, again) = call(&app, create(&key, "k@example.com")).await;
    assert_eq!((status, headers.get("idempotent-replayed").is_some()), (StatusCode::CREATED, true));
    assert_eq!(again["data"]["id"], first["data"]["id"]);
    // A keyed key creation keeps no secret: the retry learns the key was made, not the key.
    let make = || {
        post(
            KEYS,
            &admin,
            json!({"name": "once", "permissions": ["customers:read"], "current_password": ADMIN_PASSWORD}),
        )
        .insert_header(("Idempotency-Key", "key-1"))
    };
    let (status, _, made) = call(&app, make()).await;
    assert_eq!(status, StatusCode::CREATED, "{made}");
    let (status, headers, replayed) = call(&app, make()).await;
    assert_eq!((status, headers.get("idempotent-replayed").is_some()), (StatusCode::CREATED, true));
    assert_eq!(replayed["data"]["id"], made["data"]["id"]);
    assert!(replayed["data"].get("key").is_none() && made["data"]["key"].is_string(), "{replayed}");
    let secret = made["data"]["key"].as_str().expect("key");
    let kept = format!(
        "SELECT count(*) AS n FROM idempotency_keys WHERE key = 'key-1' AND encode(body, 'escape') NOT LIKE '%{secret}%'"
    );
    assert_eq!(crate::commerce_support::scalar(&t.state.pool, &kept).await, 1, "the answer is kept, without the key");
    // The owner's own key space is another one.
    let (status, headers, _) = call(&app, create(&admin, "owner@example.com")).await;
    assert_eq!((status, headers.get("idempotent-replayed").is_some()), (StatusCode::CREATED, false));
    t.stop().await;
}

#[actix_web::test]
async fn a_person_holds_a_bounded_number_of_live_keys() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let mut first = None;
    for _ in 0..25 {
        let (id, _) = new_key(&app, &admin, ADMIN_PASSWORD, &["customers:read"]).await;
        first.get_or_insert(id);
    }
    let (status, _, body) = call(
        &app,
        post(
            KEYS,
            &admin,
            json!({"name": "one more", "permissions": ["customers:read"], "current_password": ADMIN_PASSWORD}),
        ),
    )
    .await;
    assert_eq!((status, code(&body)), (StatusCode::CONFLICT, "TOO_MANY_API_KEYS"), "{body}");
    let revoke = TestRequest::delete().uri(&format!("{KEYS}/{}", first.expect("a key"))).insert_header(bearer(&admin));
    assert_eq!(call(&app, revoke).await.0, StatusCode::NO_CONTENT);
    new_key(&app, &admin, ADMIN_PASSWORD, &["customers:read"]).await;
    t.stop().await;
}
