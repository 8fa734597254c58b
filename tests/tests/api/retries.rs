//! Safe retries: `Idempotency-Key` on POSTs (docs/retries.md) through the HTTP API.

use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::http::header::HeaderMap;
use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use diesel_async::RunQueryDsl;
use futures_util::future::join_all;
use serde_json::{json, Value};
use tally_tests::{bearer, call, login, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::commerce_support::{customer, location, order, product, stock};
use crate::crm_support::{code, count, BASE};

const KEY: &str = "Idempotency-Key";

fn keyed(method: TestRequest, uri: &str, token: Option<&str>, key: &str, body: Value) -> TestRequest {
    let request = method.uri(uri).insert_header((KEY, key)).set_json(body);
    match token {
        Some(token) => request.insert_header(bearer(token)),
        None => request,
    }
}

fn post(uri: &str, token: &str, key: &str, body: Value) -> TestRequest {
    keyed(TestRequest::post(), uri, Some(token), key, body)
}

fn replayed(headers: &HeaderMap) -> bool {
    headers.get("idempotent-replayed").is_some_and(|v| v == "true")
}

/// Sends `request` twice (built by `make`); asserts the second is the first's answer, replayed.
async fn twice<S, B>(app: &S, make: impl Fn() -> TestRequest) -> (StatusCode, Value)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (status, headers, body) = call(app, make()).await;
    assert!(!replayed(&headers), "a first request is not a replay");
    let (again, again_headers, again_body) = call(app, make()).await;
    assert_eq!((again, &again_body), (status, &body), "the retry gets the same answer");
    assert!(replayed(&again_headers), "the retry is marked Idempotent-Replayed: {again_headers:?}");
    (status, body)
}

async fn sql(t: &TestApp, statement: &str) {
    let mut conn = t.state.pool.get().await.expect("conn");
    diesel::sql_query(statement).execute(&mut conn).await.unwrap_or_else(|e| panic!("{statement}: {e}"));
}

fn new_customer_body(email: &str) -> Value {
    json!({"name": "Grace Hopper", "email": email})
}

#[actix_web::test]
async fn a_retried_create_is_replayed_and_leaves_one_record() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let uri = format!("{BASE}/customers");
    let body = new_customer_body("grace@example.com");

    let (status, created) = twice(&app, || post(&uri, &admin, "create-1", body.clone())).await;
    assert_eq!(status, StatusCode::CREATED, "{created}");
    let id: Uuid = created["data"]["id"].as_str().and_then(|s| s.parse().ok()).expect("id");
    let sql_count = "SELECT count(*) AS n FROM customers WHERE email = 'grace@example.com' AND id = $1";
    assert_eq!(count(&t, sql_count, id).await, 1);
    let events = "SELECT count(*) AS n FROM outbox_events WHERE aggregate_id = $1 AND name = 'customer.created'";
    assert_eq!(count(&t, events, id).await, 1, "one change, one event");

    // Another request under the same key is refused and changes nothing.
    let (status, _, refused) = call(&app, post(&uri, &admin, "create-1", new_customer_body("other@example.com"))).await;
    assert_eq!((status, code(&refused)), (StatusCode::UNPROCESSABLE_ENTITY, "IDEMPOTENCY_KEY_REUSED"), "{refused}");
    let (status, _, refused) = call(&app, post(&format!("{uri}?x=1"), &admin, "create-1", body.clone())).await;
    assert_eq!((status, code(&refused)), (StatusCode::UNPROCESSABLE_ENTITY, "IDEMPOTENCY_KEY_REUSED"));
    let others = "SELECT count(*) AS n FROM customers WHERE email = 'other@example.com' AND id <> $1";
    assert_eq!(count(&t, others, id).await, 0);

    // A client's mistake is kept and replayed too.
    let (status, bad) = twice(&app, || post(&uri, &admin, "bad-1", json!({"name": "No Email"}))).await;
    assert_eq!((status, code(&bad)), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR"));
    // Without a key nothing changes: a second create of the same email is the usual conflict.
    let (status, _, conflict) = call(&app, crate::crm_support::post(&uri, &admin, body.clone())).await;
    assert_eq!((status, code(&conflict)), (StatusCode::CONFLICT, "ALREADY_EXISTS"), "{conflict}");

    // Malformed keys.
    for bad_key in ["", "with space", &"k".repeat(256)] {
        let (status, _, body) = call(&app, post(&uri, &admin, bad_key, new_customer_body("x@example.com"))).await;
        assert_eq!((status, code(&body)), (StatusCode::BAD_REQUEST, "VALIDATION_ERROR"), "key {bad_key:?}");
        assert!(body["error"]["details"]["Idempotency-Key"].is_string(), "{body}");
    }
    // Keys belong to their caller: another user's same key is a request of its own.
    let (_, other) = register_staff(&app, "other-user@example.com", "password-123").await;
    let (status, headers, theirs) =
        call(&app, post(&uri, &other, "create-1", new_customer_body("mine@example.com"))).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::CREATED, false), "{theirs}");
    t.stop().await;
}

#[actix_web::test]
async fn every_kind_of_post_takes_effect_once() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;

    // A lifecycle move.
    let (_, lead) = twice(&app, || post(&format!("{BASE}/customers"), &admin, "c", new_customer_body("l@x.io"))).await;
    let lead_id = lead["data"]["id"].as_str().expect("id").to_owned();
    let qualify = format!("{BASE}/customers/{lead_id}/qualify");
    let (status, moved) = twice(&app, || post(&qualify, &admin, "q", json!({}))).await;
    assert_eq!((status, moved["data"]["status"].as_str()), (StatusCode::OK, Some("prospect")), "{moved}");
    let history = "SELECT count(*) AS n FROM customer_status_history WHERE customer_id = $1 AND to_status = 'prospect'";
    assert_eq!(count(&t, history, lead_id.parse().expect("uuid")).await, 1, "one move");

    // Order lines and confirmation.
    let widget = product(&app, &admin, "W-1").await;
    let buyer = customer(&t.state.pool).await;
    let pending = order(&app, &admin, buyer, json!({})).await;
    let order_id = pending["id"].as_str().expect("id").to_owned();
    let lines = format!("/api/v1/order-mgmt/orders/{order_id}/lines");
    let line_body = json!({"product_id": widget["id"], "quantity": 2, "unit_price": 150, "currency": "USD"});
    let (status, _) = twice(&app, || post(&lines, &admin, "line", line_body.clone())).await;
    assert_eq!(status, StatusCode::CREATED);
    let order_uuid: Uuid = order_id.parse().expect("uuid");
    assert_eq!(count(&t, "SELECT count(*) AS n FROM order_lines WHERE order_id = $1", order_uuid).await, 1);
    let confirm = format!("/api/v1/order-mgmt/orders/{order_id}/confirm");
    let (status, confirmed) = twice(&app, || post(&confirm, &admin, "confirm", json!({}))).await;
    assert_eq!((status, confirmed["data"]["status"].as_str()), (StatusCode::OK, Some("confirmed")), "{confirmed}");
    let confirmations = "SELECT count(*) AS n FROM outbox_events WHERE aggregate_id = $1 AND name = 'order.confirmed'";
    assert_eq!(count(&t, confirmations, order_uuid).await, 1);
    // Without the key, the retry is the plain second confirmation it always was.
    let (status, _, again) = call(&app, crate::crm_support::post(&confirm, &admin, json!({}))).await;
    assert_eq!((status, code(&again)), (StatusCode::CONFLICT, "INVALID_STATUS_TRANSITION"));

    // A stock operation.
    let shelf = location(&app, &admin, "LOC-1").await;
    let record = stock(&app, &admin, &widget, &shelf, 10).await;
    let receive = format!("/api/v1/warehouse/inventory/{}/receive", record["id"].as_str().expect("id"));
    let (status, received) = twice(&app, || post(&receive, &admin, "receive", json!({"quantity": 5}))).await;
    assert_eq!(status, StatusCode::OK, "{received}");
    assert_eq!(received["data"]["inventory"]["quantity_on_hand"], 15, "{received}");
    let on_hand = "SELECT quantity_on_hand::bigint AS n FROM inventory WHERE id = $1";
    assert_eq!(count(&t, on_hand, record["id"].as_str().expect("id").parse().expect("uuid")).await, 15);

    // Registration answers with tokens: it ignores the key (docs/identity.md), so a retry runs again and
    // meets the account the first one made; nothing holding a token is kept.
    let register_uri = "/api/v1/identity/users/register";
    let person = json!({"email": "new@example.com", "name": "New Person", "password": "password-123"});
    let register = || keyed(TestRequest::post(), register_uri, None, "reg-1", person.clone());
    let (status, _, registered) = call(&app, register()).await;
    assert_eq!(status, StatusCode::CREATED, "{registered}");
    let (again, headers, _) = call(&app, register()).await;
    assert_eq!(again, StatusCode::CONFLICT, "run again, not replayed");
    assert!(!replayed(&headers));
    let user_id: Uuid = registered["data"]["user"]["id"].as_str().and_then(|s| s.parse().ok()).expect("id");
    assert_eq!(
        count(&t, "SELECT count(*) AS n FROM users WHERE id = $1 OR email = 'new@example.com'", user_id).await,
        1
    );
    assert_eq!(postgres_toolkit::request_tx::busy_fallbacks(), 0, "no request needed a second connection");
    t.stop().await;
}

#[actix_web::test]
async fn simultaneous_retries_under_one_key_leave_one_record() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let uri = format!("{BASE}/customers");
    let body = new_customer_body("storm@example.com");
    let answers = join_all((0..10).map(|_| call(&app, post(&uri, &admin, "storm", body.clone())))).await;
    let mut created = Vec::new();
    for (status, _, answer) in &answers {
        match status.as_u16() {
            201 => created.push(answer["data"]["id"].clone()),
            409 => assert_eq!(code(answer), "IDEMPOTENCY_KEY_IN_USE", "{answer}"),
            other => panic!("unexpected {other}: {answer}"),
        }
    }
    assert!(!created.is_empty(), "at least the first one ran");
    assert!(created.iter().all(|id| *id == created[0]), "every 201 is the same customer: {created:?}");
    let n = count(&t, "SELECT count(*) AS n FROM customers WHERE email = 'storm@example.com' OR id = $1", Uuid::nil());
    assert_eq!(n.await, 1);
    // Once the first finished, a retry gets its answer.
    let (status, headers, again) = call(&app, post(&uri, &admin, "storm", body.clone())).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::CREATED, true));
    assert_eq!(again["data"]["id"], created[0]);
    t.stop().await;
}

#[actix_web::test]
async fn the_answer_is_kept_in_the_transaction_of_the_change() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let uri = format!("{BASE}/customers");
    // When the answer cannot be kept, the change is undone with it (and the 500 is not kept).
    sql(&t, "CREATE FUNCTION refuse_key() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'no'; END $$")
        .await;
    sql(&t, "CREATE TRIGGER refuse_key BEFORE INSERT ON idempotency_keys FOR EACH ROW EXECUTE FUNCTION refuse_key()")
        .await;
    let body = new_customer_body("atomic@example.com");
    let (status, _, failed) = call(&app, post(&uri, &admin, "atomic", body.clone())).await;
    assert_eq!((status, code(&failed)), (StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL_ERROR"), "{failed}");
    let none = "SELECT count(*) AS n FROM customers WHERE email = 'atomic@example.com' OR id = $1";
    assert_eq!(count(&t, none, Uuid::nil()).await, 0, "the customer was rolled back with the answer");
    let events = "SELECT count(*) AS n FROM outbox_events \
                  WHERE (name = 'customer.created' AND data->>'email' = 'atomic@example.com') OR aggregate_id = $1";
    assert_eq!(count(&t, events, Uuid::nil()).await, 0, "and so was its event");
    sql(&t, "DROP TRIGGER refuse_key ON idempotency_keys").await;
    let (status, headers, _) = call(&app, post(&uri, &admin, "atomic", body)).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::CREATED, false), "the retry runs again");
    t.stop().await;
}

#[actix_web::test]
async fn a_server_killed_between_commit_and_answer_replays_on_retry() {
    let mut t = TestApp::start().await;
    let admin = {
        let app = init_service(build_app(t.state.clone())).await;
        login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await
    };
    let uri = format!("{BASE}/customers");
    let body = new_customer_body("crash@example.com");
    // Commits take a while (a deferred trigger sleeps at COMMIT), so the server can die meanwhile.
    sql(&t, "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1.5); RETURN NULL; END $$").await;
    sql(
        &t,
        "CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON idempotency_keys DEFERRABLE INITIALLY DEFERRED \
             FOR EACH ROW EXECUTE FUNCTION slow_commit()",
    )
    .await;
    {
        let app = init_service(build_app(t.state.clone())).await;
        let lost =
            tokio::time::timeout(Duration::from_millis(700), call(&app, post(&uri, &admin, "crash", body.clone())));
        assert!(lost.await.is_err(), "the answer never came: the request was dropped during its COMMIT");
    }
    // The process is gone: a fresh instance, nothing in memory.
    t.restart(tally_tests::TestOptions::default()).await;
    sql(&t, "DROP TRIGGER slow_commit ON idempotency_keys").await;
    let app = init_service(build_app(t.state.clone())).await;
    let deadline = Instant::now() + Duration::from_secs(10);
    let (status, headers, answer) = loop {
        let (status, headers, answer) = call(&app, post(&uri, &admin, "crash", body.clone())).await;
        if status != StatusCode::CONFLICT || Instant::now() > deadline {
            break (status, headers, answer);
        }
        assert_eq!(code(&answer), "IDEMPOTENCY_KEY_IN_USE", "only while the first still commits: {answer}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!((status, replayed(&headers)), (StatusCode::CREATED, true), "{answer}");
    let id: Uuid = answer["data"]["id"].as_str().and_then(|s| s.parse().ok()).expect("id");
    let one = "SELECT count(*) AS n FROM customers WHERE email = 'crash@example.com' AND id = $1";
    assert_eq!(count(&t, one, id).await, 1, "the replayed answer names the one customer the first request made");
    let all = "SELECT count(*) AS n FROM customers WHERE email = 'crash@example.com' OR id = $1";
    assert_eq!(count(&t, all, id).await, 1);
    t.stop().await;
}

#[actix_web::test]
async fn keys_are_only_for_posts_and_expired_keys_are_forgotten() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let uri = format!("{BASE}/customers");
    let (_, created) = twice(&app, || post(&uri, &admin, "old", new_customer_body("old@example.com"))).await;
    let id = created["data"]["id"].as_str().expect("id").to_owned();
    // A PUT carrying a key is not replayed: PUT is idempotent by itself.
    let put =
        |name: &str| keyed(TestRequest::put(), &format!("{uri}/{id}"), Some(&admin), "put", json!({"name": name}));
    let (_, _, first) = call(&app, put("First")).await;
    let (_, headers, second) = call(&app, put("Second")).await;
    assert!(!replayed(&headers));
    assert_eq!((first["data"]["name"].as_str(), second["data"]["name"].as_str()), (Some("First"), Some("Second")));
    // Past its 24 hours a key is swept and may be used afresh.
    sql(
        &t,
        "UPDATE idempotency_keys SET created_at = now() - interval '2 days', expires_at = now() - interval '1 day'",
    )
    .await;
    let swept = postgres_toolkit::idempotency::sweep(&t.state.pool).await.expect("sweep");
    assert!(swept >= 1, "swept {swept}");
    let (status, headers, fresh) = call(&app, post(&uri, &admin, "old", new_customer_body("old-2@example.com"))).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::CREATED, false), "{fresh}");
    t.stop().await;
}

#[actix_web::test]
async fn an_abandoned_keyed_request_rolls_back_at_once() {
    // Hashing the password takes a while at this cost: the client gives up meanwhile, when the
    // request's transaction is open (the key claimed) but no statement is running.
    let t = TestApp::start_with(tally_tests::TestOptions::default().with_env("BCRYPT_COST", "12")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let uri = "/api/v1/identity/users/register";
    let person = json!({"email": "gone@example.com", "name": "Gone", "password": "password-123"});
    let attempt = || keyed(TestRequest::post(), uri, None, "gone", person.clone());
    let gave_up = tokio::time::timeout(Duration::from_millis(60), call(&app, attempt()));
    assert!(gave_up.await.is_err(), "the client gave up");
    // The abandoned transaction is rolled back at once: no session of this database stays idle in
    // a transaction holding the key's lock. (Watched on a connection of its own: a checkout from
    // the app's pool could recycle the abandoned one.)
    #[derive(diesel::QueryableByName)]
    struct Open {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut watcher = <diesel_async::AsyncPgConnection as diesel_async::AsyncConnection>::establish(&t.db.url)
        .await
        .expect("watcher");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let open: Open = diesel::sql_query(
            "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() \
             AND pid <> pg_backend_pid() AND state LIKE 'idle in transaction%'",
        )
        .get_result(&mut watcher)
        .await
        .expect("watch");
        if open.n == 0 {
            break;
        }
        assert!(Instant::now() < deadline, "an abandoned transaction is still open ({} sessions)", open.n);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (status, headers, created) = call(&app, attempt()).await;
    assert_eq!((status, replayed(&headers)), (StatusCode::CREATED, false), "the retry runs afresh: {created}");
    let all = "SELECT count(*) AS n FROM users WHERE email = 'gone@example.com' OR id = $1";
    assert_eq!(count(&t, all, Uuid::nil()).await, 1);
    t.stop().await;
}
