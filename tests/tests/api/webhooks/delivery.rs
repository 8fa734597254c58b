//! What a receiver gets: signed deliveries of the events it listens to, retries with one
//! `webhook-id`, a log of every attempt, manual re-sends, test pings and rotated secrets.

use std::time::Duration;

use actix_web::test::init_service;
use api::build_app;
use serde_json::json;
use shared_kernel::EventEnvelope;
use tally_tests::{login, Receiver, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use webhooks::DeliveryQueue;

use super::{endpoint, options, quiet, types, verify, WEBHOOKS};
use crate::commerce_support::order;
use crate::crm_support::{admin_id, days_from_today, expect, get, id_of, new_customer, post, reject, wait_for, BASE};
use crate::support::eventually;

const PATIENCE: Duration = Duration::from_secs(15);

#[actix_web::test]
async fn deliveries_are_signed_and_filtered_by_wildcard() {
    let receiver = Receiver::start().await;
    let t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    quiet(&t).await;
    let (customers, customers_secret) =
        endpoint(&app, &admin, &receiver.url("/customers"), &["customer.created"]).await;
    let (_, deals_secret) = endpoint(&app, &admin, &receiver.url("/deals"), &["customer.deal.*"]).await;
    let (_, orders_secret) = endpoint(&app, &admin, &receiver.url("/orders"), &["order.*"]).await;
    let (_, all_secret) = endpoint(&app, &admin, &receiver.url("/all"), &["*"]).await;

    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Hook", "email": "hook@example.com"})).await);
    let deal = json!({"customer_id": customer, "assigned_to": admin_id(&t).await, "name": "Plan", "value": 100,
                      "currency": "USD", "expected_close_date": days_from_today(30)});
    expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal)).await;
    order(&app, &admin, customer, json!({})).await;

    let wanted = ["customer.created", "customer.deal.created", "order.created"];
    eventually(PATIENCE, "every endpoint hears its events", || {
        let all = types(&receiver.received_at("/all"));
        !receiver.received_at("/customers").is_empty()
            && !receiver.received_at("/deals").is_empty()
            && !receiver.received_at("/orders").is_empty()
            && wanted.iter().all(|w| all.iter().any(|t| t == w))
    })
    .await;
    assert_eq!(types(&receiver.received_at("/customers")), ["customer.created"]);
    assert_eq!(types(&receiver.received_at("/deals")), ["customer.deal.created"]);
    assert_eq!(types(&receiver.received_at("/orders")), ["order.created"]);

    for (path, secret) in [
        ("/customers", &customers_secret),
        ("/deals", &deals_secret),
        ("/orders", &orders_secret),
        ("/all", &all_secret),
    ] {
        for received in receiver.received_at(path) {
            assert_eq!(verify(secret, &received), Ok(()), "{path}: the reference library accepts it");
            assert!(verify(&customers_secret, &received).is_err() || path == "/customers", "another secret fails");
            let mut forged = received.clone();
            forged.body = forged.body.iter().map(|b| if *b == b'1' { b'2' } else { *b }).collect();
            forged.body.extend_from_slice(b" ");
            assert!(verify(secret, &forged).is_err(), "{path}: a forged body is rejected");
            assert_eq!(received.header("content-type"), Some("application/json"));
            assert!(received.header("webhook-id").is_some_and(|id| id.starts_with("msg_")));
        }
    }
    let created = &receiver.received_at("/customers")[0];
    let body = created.json();
    assert_eq!(body["data"]["aggregate_id"], json!(customer));
    assert_eq!(body["data"]["data"]["email"], json!("hook@example.com"));
    assert!(body["timestamp"].as_str().is_some_and(|t| t.ends_with('Z')), "{body}");
    let event_id = body["data"]["id"].as_str().expect("event id").to_owned();

    // The log: one delivery of that event, succeeded at the first attempt. The worker records the
    // attempt once the receiver has answered, so the receiver can hold it a moment before the log does.
    let succeeded = format!("{WEBHOOKS}/{customers}/deliveries?status=succeeded");
    wait_for("the delivery is logged as succeeded", || async {
        expect(&app, 200, get(&succeeded, &admin)).await.as_array().is_some_and(|l| !l.is_empty())
    })
    .await;
    let log = expect(&app, 200, get(&format!("{WEBHOOKS}/{customers}/deliveries"), &admin)).await;
    assert_eq!(log.as_array().map(Vec::len), Some(1), "{log}");
    assert_eq!(
        (log[0]["status"].as_str(), log[0]["attempt_count"].as_i64(), log[0]["event_id"].as_str()),
        (Some("succeeded"), Some(1), Some(event_id.as_str()))
    );
    assert_eq!(log[0]["webhook_id"].as_str(), created.header("webhook-id"));

    // The bus hands an event over again after a crash: it makes no second delivery.
    let queue = DeliveryQueue::new(t.state.pool.clone());
    let again = EventEnvelope {
        id: event_id.parse().expect("uuid"),
        name: "customer.created".into(),
        aggregate_id: customer,
        occurred_at: time::OffsetDateTime::now_utc(),
        data: json!({}),
    };
    assert_eq!(queue.fan_out(&[&again]).await.expect("fan out"), 0);
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn a_failing_receiver_gets_retries_with_one_webhook_id_and_the_log_shows_them() {
    let receiver = Receiver::start().await;
    receiver.answer(&[500, 500]);
    let t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (id, secret) = endpoint(&app, &admin, &receiver.url("/flaky"), &["nothing.*"]).await;
    expect(&app, 202, post(&format!("{WEBHOOKS}/{id}/test"), &admin, json!({}))).await;

    eventually(PATIENCE, "three attempts", || receiver.received().len() >= 3).await;
    let received = receiver.received();
    let ids: Vec<_> = received.iter().map(|r| r.header("webhook-id").expect("id").to_owned()).collect();
    assert!(ids.iter().all(|i| *i == ids[0]), "one webhook-id on every attempt: {ids:?}");
    for r in &received {
        assert_eq!(verify(&secret, r), Ok(()));
    }
    let uri = format!("{WEBHOOKS}/{id}/deliveries?status=succeeded");
    wait_for("the delivery succeeds", || async {
        expect(&app, 200, get(&uri, &admin)).await.as_array().is_some_and(|l| l.len() == 1)
    })
    .await;
    let listed = expect(&app, 200, get(&uri, &admin)).await;
    let delivery = listed[0]["id"].as_str().expect("id").to_owned();
    let detail = expect(&app, 200, get(&format!("{WEBHOOKS}/{id}/deliveries/{delivery}"), &admin)).await;
    let statuses: Vec<_> =
        detail["attempts"].as_array().expect("attempts").iter().map(|a| a["response_status"].clone()).collect();
    assert_eq!(statuses, [json!(500), json!(500), json!(200)], "{detail}");
    assert_eq!(detail["attempt_count"], json!(3));
    assert_eq!(detail["webhook_id"].as_str(), Some(ids[0].as_str()));
    assert_eq!(detail["attempts"][0]["response_body"], json!("answered 500"));
    assert_eq!(detail["payload"]["type"], json!("webhook.test"));
    let times: Vec<_> = detail["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .map(|a| a["attempted_at"].as_str().unwrap_or("").to_owned())
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "oldest first: {times:?}");
    for status in ["pending", "failed"] {
        let none = expect(&app, 200, get(&format!("{WEBHOOKS}/{id}/deliveries?status={status}"), &admin)).await;
        assert_eq!(none, json!([]), "{status}");
    }
    reject(&app, 400, "VALIDATION_ERROR", get(&format!("{WEBHOOKS}/{id}/deliveries?status=done"), &admin)).await;
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn a_failed_delivery_is_resent_by_hand() {
    let receiver = Receiver::start().await;
    receiver.answer(&[503]);
    let t = TestApp::start_with(options().with_env("WEBHOOK_RETRY_SCHEDULE", "none")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (id, secret) = endpoint(&app, &admin, &receiver.url("/once"), &["nothing.*"]).await;
    let ping = expect(&app, 202, post(&format!("{WEBHOOKS}/{id}/test"), &admin, json!({}))).await;
    assert_eq!((ping["status"].as_str(), ping["event_type"].as_str()), (Some("pending"), Some("webhook.test")));
    let delivery = ping["id"].as_str().expect("id").to_owned();
    let detail_uri = format!("{WEBHOOKS}/{id}/deliveries/{delivery}");
    wait_for("the only attempt fails", || async {
        expect(&app, 200, get(&detail_uri, &admin)).await["status"] == json!("failed")
    })
    .await;

    let retried = expect(&app, 202, post(&format!("{detail_uri}/retry"), &admin, json!({}))).await;
    assert_eq!(retried["status"], json!("pending"));
    wait_for("the re-sent delivery succeeds", || async {
        expect(&app, 200, get(&detail_uri, &admin)).await["status"] == json!("succeeded")
    })
    .await;
    let received = receiver.received();
    assert_eq!(received.len(), 2);
    assert_eq!(received[0].header("webhook-id"), received[1].header("webhook-id"), "the same message");
    assert_eq!(verify(&secret, &received[1]), Ok(()));
    assert_eq!(types(&received), ["webhook.test", "webhook.test"]);
    let detail = expect(&app, 200, get(&detail_uri, &admin)).await;
    let statuses: Vec<_> =
        detail["attempts"].as_array().expect("attempts").iter().map(|a| a["response_status"].clone()).collect();
    assert_eq!(statuses, [json!(503), json!(200)]);

    let nobody = uuid::Uuid::now_v7();
    reject(&app, 404, "NOT_FOUND", post(&format!("{WEBHOOKS}/{id}/deliveries/{nobody}/retry"), &admin, json!({})))
        .await;
    reject(
        &app,
        404,
        "NOT_FOUND",
        post(&format!("{WEBHOOKS}/{nobody}/deliveries/{delivery}/retry"), &admin, json!({})),
    )
    .await;
    reject(&app, 404, "NOT_FOUND", get(&format!("{WEBHOOKS}/{nobody}/deliveries"), &admin)).await;
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn test_pings_and_secret_rotation() {
    let receiver = Receiver::start().await;
    let t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (id, old_secret) = endpoint(&app, &admin, &receiver.url("/ping"), &["order.*"]).await;
    assert!(old_secret.starts_with("whsec_"));
    let shown = expect(&app, 200, get(&format!("{WEBHOOKS}/{id}"), &admin)).await;
    assert!(shown.get("secret").is_none(), "the secret is shown once: {shown}");

    expect(&app, 202, post(&format!("{WEBHOOKS}/{id}/test"), &admin, json!({}))).await;
    eventually(PATIENCE, "the ping", || receiver.received().len() == 1).await;
    let ping = &receiver.received()[0];
    assert_eq!(types(std::slice::from_ref(ping)), ["webhook.test"]);
    assert_eq!(verify(&old_secret, ping), Ok(()));

    let rotated = expect(&app, 200, post(&format!("{WEBHOOKS}/{id}/rotate-secret"), &admin, json!({}))).await;
    let new_secret = rotated["secret"].as_str().expect("new secret").to_owned();
    assert_ne!(new_secret, old_secret);
    expect(&app, 202, post(&format!("{WEBHOOKS}/{id}/test"), &admin, json!({}))).await;
    eventually(PATIENCE, "the second ping", || receiver.received().len() == 2).await;
    let second = &receiver.received()[1];
    assert_eq!(verify(&new_secret, second), Ok(()), "the new secret verifies");
    assert_eq!(verify(&old_secret, second), Ok(()), "the old one too, for the grace period");
    assert_eq!(second.header("webhook-signature").map(|s| s.split(' ').count()), Some(2));
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn https_endpoints_speak_tls_and_a_failed_handshake_is_a_failed_attempt() {
    // A bare TCP listener: it reads what the client sends first, then hangs up.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("listener");
    let port = listener.local_addr().expect("addr").port();
    let first_bytes = tokio::spawn(async move {
        let (mut socket, _) = listener.accept().await.expect("a connection");
        let mut hello = [0u8; 5];
        tokio::io::AsyncReadExt::read_exact(&mut socket, &mut hello).await.expect("bytes");
        hello
    });
    let t = TestApp::start_with(options().with_env("WEBHOOK_RETRY_SCHEDULE", "none")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (id, _) = endpoint(&app, &admin, &format!("https://localhost:{port}/tls"), &["nothing.*"]).await;
    let ping = expect(&app, 202, post(&format!("{WEBHOOKS}/{id}/test"), &admin, json!({}))).await;
    let hello = tokio::time::timeout(PATIENCE, first_bytes).await.expect("in time").expect("listener task");
    assert_eq!((hello[0], hello[1]), (0x16, 0x03), "a TLS handshake record: {hello:?}");
    let uri = format!("{WEBHOOKS}/{id}/deliveries/{}", ping["id"].as_str().expect("id"));
    wait_for("the attempt fails", || async { expect(&app, 200, get(&uri, &admin)).await["status"] == json!("failed") })
        .await;
    let attempt = &expect(&app, 200, get(&uri, &admin)).await["attempts"][0];
    assert_eq!(attempt["response_status"], json!(null), "{attempt}");
    assert!(attempt["error"].as_str().is_some_and(|e| !e.is_empty()), "{attempt}");
    t.stop().await;
}

/// `*` stands for any run of characters, dots included, and nothing else is a wildcard: checked
/// against the fan-out statement, the one place events are matched.
#[actix_web::test]
async fn wildcards_match_runs_of_characters() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let cases: [(&[&str], &[&str], &[&str]); 6] = [
        (
            &["order.*"],
            &["order.confirmed", "order.line.added", "order."],
            &["order", "orders.confirmed", "customer.created", "xorder.confirmed"],
        ),
        (&["*"], &["anything.at.all"], &[]),
        (&["*.created"], &["customer.created", "deal.stage.created"], &["customer.created.late"]),
        (&["deal.won", "customer.*"], &["deal.won", "customer.churned"], &["deal.lost"]),
        (&["a*b*c"], &["axxbyyc"], &["axxbyy"]),
        // `_` is a literal character, not LIKE's any-one-character.
        (
            &["order_created", "customer.status_changed"],
            &["customer.status_changed"],
            &["order.created", "customer.statusxchanged"],
        ),
    ];
    let queue = DeliveryQueue::new(t.state.pool.clone());
    for (patterns, yes, no) in cases {
        let (id, _) = endpoint(&app, &admin, "https://hooks.example.com/filter", patterns).await;
        for (name, expected) in yes.iter().map(|n| (n, 1)).chain(no.iter().map(|n| (n, 0))) {
            let event = EventEnvelope::new(*name, uuid::Uuid::now_v7(), json!({}));
            queue.fan_out(&[&event]).await.expect("fan out");
            let sql = "SELECT count(*) AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND event_id = $2";
            #[derive(diesel::QueryableByName)]
            struct Count {
                #[diesel(sql_type = diesel::sql_types::BigInt)]
                n: i64,
            }
            let mut conn = t.state.pool.get().await.expect("conn");
            let found: Count = diesel_async::RunQueryDsl::get_result(
                diesel::sql_query(sql)
                    .bind::<diesel::sql_types::Uuid, _>(id)
                    .bind::<diesel::sql_types::Uuid, _>(event.id),
                &mut conn,
            )
            .await
            .expect("count");
            assert_eq!(found.n, expected, "{patterns:?} and {name}");
        }
        // Out of the way of the next case (everything would match `*`).
        crate::crm_support::expect(&app, 204, crate::crm_support::delete(&format!("{WEBHOOKS}/{id}"), &admin)).await;
    }
    t.stop().await;
}
