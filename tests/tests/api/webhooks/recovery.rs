//! Nothing lost, nothing sent twice beyond at-least-once: restarts mid-delivery, claims of a
//! crashed instance, and several instances sharing the work.

use std::collections::HashSet;
use std::time::Duration;

use actix_web::test::init_service;
use api::build_app;
use diesel_async::RunQueryDsl;
use serde_json::json;
use tally_tests::{login, Receiver, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use super::{endpoint, options, quiet, verify, WEBHOOKS};
use crate::crm_support::{expect, get, new_customer, post, put, wait_for};
use crate::support::eventually;

const PATIENCE: Duration = Duration::from_secs(15);

#[actix_web::test]
async fn a_delivery_in_flight_at_a_restart_is_sent_again_with_its_webhook_id() {
    let receiver = Receiver::start().await;
    // The first answer comes long after the instance has gone.
    receiver.delay(&[Duration::from_secs(5)]);
    let mut t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (id, secret) = endpoint(&app, &admin, &receiver.url("/slow"), &["nothing.*"]).await;
    let ping = expect(&app, 202, post(&format!("{WEBHOOKS}/{id}/test"), &admin, json!({}))).await;
    eventually(PATIENCE, "the first attempt is under way", || receiver.received().len() == 1).await;
    drop(app);

    t.restart(options()).await;
    eventually(PATIENCE, "sent again by the new instance", || receiver.received().len() >= 2).await;
    let received = receiver.received();
    assert_eq!(received.len(), 2, "{received:?}");
    assert_eq!(received[0].header("webhook-id"), received[1].header("webhook-id"), "at least once, one message id");
    assert_eq!(verify(&secret, &received[1]), Ok(()));
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let uri = format!("{WEBHOOKS}/{id}/deliveries/{}", ping["id"].as_str().expect("id"));
    wait_for("recorded as succeeded", || async {
        expect(&app, 200, get(&uri, &admin)).await["status"] == json!("succeeded")
    })
    .await;
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn claims_of_a_crashed_instance_are_taken_over_when_their_lease_runs_out() {
    let receiver = Receiver::start().await;
    let t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let off = json!({"url": receiver.url("/crash"), "events": ["crash.*"], "enabled": false});
    let endpoint_id =
        expect(&app, 201, post(WEBHOOKS, &admin, off.clone())).await["id"].as_str().expect("id").to_owned();
    // Two deliveries an instance claimed before it crashed: one lease has run out, one has not.
    let mut conn = t.state.pool.get().await.expect("conn");
    for (lease, event) in [("-1 second", "crash.expired"), ("1 hour", "crash.held")] {
        diesel::sql_query(format!(
            "INSERT INTO webhook_deliveries (id, endpoint_id, event_type, payload, next_attempt_at, claim) \
             VALUES (gen_random_uuid(), $1, '{event}', '{{\"type\": \"{event}\"}}', now() + interval '{lease}', \
                     gen_random_uuid())"
        ))
        .bind::<diesel::sql_types::Uuid, _>(uuid::Uuid::parse_str(&endpoint_id).expect("uuid"))
        .execute(&mut conn)
        .await
        .expect("a crashed instance's claim");
    }
    drop(conn);
    let mut on = off;
    on["enabled"] = json!(true);
    expect(&app, 200, put(&format!("{WEBHOOKS}/{endpoint_id}"), &admin, on)).await;

    eventually(PATIENCE, "the expired claim is taken over", || !receiver.received().is_empty()).await;
    assert_eq!(receiver.received().len(), 1, "{:?}", receiver.received());
    assert_eq!(receiver.received()[0].json()["type"], json!("crash.expired"));
    let pending = expect(&app, 200, get(&format!("{WEBHOOKS}/{endpoint_id}/deliveries?status=pending"), &admin)).await;
    assert_eq!(pending[0]["event_type"], json!("crash.held"), "a live claim is left to its holder: {pending}");
    let held = pending[0]["id"].as_str().expect("id").to_owned();
    crate::crm_support::reject(
        &app,
        409,
        "DELIVERY_IN_PROGRESS",
        post(&format!("{WEBHOOKS}/{endpoint_id}/deliveries/{held}/retry"), &admin, json!({})),
    )
    .await;
    assert_eq!(receiver.received().len(), 1);
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn instances_share_the_deliveries_without_sending_one_twice() {
    let receiver = Receiver::start().await;
    let t = TestApp::start_with(options()).await;
    let other = t.instance(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let other_app = init_service(build_app(other.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    quiet(&t).await;
    let (_, secret) = endpoint(&app, &admin, &receiver.url("/shared"), &["customer.created"]).await;
    const CUSTOMERS: usize = 30;
    for i in 0..CUSTOMERS {
        let target = if i % 2 == 0 { &app } else { &other_app };
        let token = login(target, ADMIN_EMAIL, ADMIN_PASSWORD).await;
        new_customer(target, &token, json!({"name": format!("C{i}"), "email": format!("c{i}@example.com")})).await;
    }
    eventually(PATIENCE, "every customer delivered", || receiver.received().len() >= CUSTOMERS).await;
    // Give a duplicate, if any, the time to arrive.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let received = receiver.received();
    let ids: HashSet<_> = received.iter().filter_map(|r| r.header("webhook-id").map(str::to_owned)).collect();
    assert_eq!((received.len(), ids.len()), (CUSTOMERS, CUSTOMERS), "each delivery sent once");
    let aggregates: HashSet<_> = received.iter().map(|r| r.json()["data"]["aggregate_id"].to_string()).collect();
    assert_eq!(aggregates.len(), CUSTOMERS, "one per customer");
    assert!(received.iter().all(|r| verify(&secret, r).is_ok()));
    other.shutdown().await;
    receiver.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn finished_deliveries_are_forgotten_after_30_days() {
    let t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let off = json!({"url": "https://hooks.example.com/", "events": ["*"], "enabled": false});
    let endpoint_id = expect(&app, 201, post(WEBHOOKS, &admin, off)).await["id"].as_str().expect("id").to_owned();
    let mut conn = t.state.pool.get().await.expect("conn");
    for (age, status) in [("31 days", "succeeded"), ("31 days", "failed"), ("29 days", "succeeded")] {
        diesel::sql_query(format!(
            "WITH d AS (INSERT INTO webhook_deliveries (id, endpoint_id, event_type, payload, status, created_at, \
                 completed_at) VALUES (gen_random_uuid(), $1, 'old.event', '{{}}', '{status}', \
                 now() - interval '{age}', now() - interval '{age}') RETURNING id) \
             INSERT INTO webhook_attempts (delivery_id, attempted_at, response_status, duration_ms) \
             SELECT id, now() - interval '{age}', 200, 5 FROM d"
        ))
        .bind::<diesel::sql_types::Uuid, _>(uuid::Uuid::parse_str(&endpoint_id).expect("uuid"))
        .execute(&mut conn)
        .await
        .expect("an old delivery");
    }
    drop(conn);
    let queue = webhooks::DeliveryQueue::new(t.state.pool.clone());
    assert_eq!(queue.sweep().await.expect("sweep"), 2);
    assert_eq!(queue.sweep().await.expect("sweep"), 0, "nothing twice");
    let log = expect(&app, 200, get(&format!("{WEBHOOKS}/{endpoint_id}/deliveries"), &admin)).await;
    assert_eq!(log.as_array().map(Vec::len), Some(1), "the 29-day-old one stays: {log}");
    t.stop().await;
}

#[actix_web::test]
async fn a_slow_endpoint_gets_a_bounded_share_and_others_are_not_held_up() {
    let slow = Receiver::start().await;
    slow.delay(&[Duration::from_secs(3); 12]);
    let fast = Receiver::start().await;
    let t = TestApp::start_with(options()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (slow_id, _) = endpoint(&app, &admin, &slow.url("/slow"), &["nothing.*"]).await;
    let (fast_id, _) = endpoint(&app, &admin, &fast.url("/fast"), &["nothing.*"]).await;
    for _ in 0..12 {
        expect(&app, 202, post(&format!("{WEBHOOKS}/{slow_id}/test"), &admin, json!({}))).await;
    }
    eventually(PATIENCE, "the slow endpoint is saturated", || slow.received().len() >= 8).await;
    expect(&app, 202, post(&format!("{WEBHOOKS}/{fast_id}/test"), &admin, json!({}))).await;
    eventually(PATIENCE, "the fast endpoint is served", || fast.received().len() == 1).await;
    assert!(slow.received().len() < 12, "served while the slow endpoint still had a backlog");
    eventually(PATIENCE, "the slow endpoint's backlog drains", || slow.received().len() == 12).await;
    assert_eq!(slow.max_in_flight(), 8, "at most 8 attempts under way for one endpoint");
    slow.stop().await;
    fast.stop().await;
    t.stop().await;
}
