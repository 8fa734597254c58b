//! Outbound webhooks (docs/webhooks.md) against a real local receiver: signed per the Standard
//! Webhooks spec (verified with its reference library), filtered by wildcard, retried with one
//! `webhook-id`, logged, re-sent by hand, never sent to disabled endpoints or internal addresses,
//! neither lost nor duplicated across crashes and instances, and carrying only what the endpoint's
//! creator may read.

mod access;
mod delivery;
mod endpoints;
mod recovery;

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use serde_json::json;
use tally_tests::{Received, TestApp, TestOptions};
use uuid::Uuid;

use crate::crm_support::{expect, post, wait_for};

pub const WEBHOOKS: &str = "/api/v1/webhooks";

/// Private destinations allowed (the receiver is on loopback) and quick retries.
pub fn options() -> TestOptions {
    TestOptions::default()
        .with_env("WEBHOOK_ALLOW_PRIVATE", "true")
        .with_env("WEBHOOK_RETRY_SCHEDULE", "50ms,50ms,50ms")
}

/// Waits until the start-up's events (the admin's registration and the customer it makes) are
/// handled, so an endpoint created next hears only what the test does.
pub async fn quiet(t: &TestApp) {
    #[derive(diesel::QueryableByName)]
    struct Busy {
        #[diesel(sql_type = diesel::sql_types::Bool)]
        busy: bool,
    }
    let sql = "SELECT NOT EXISTS (SELECT 1 FROM customers) \
               OR EXISTS (SELECT 1 FROM outbox_events WHERE published_at IS NULL) \
               OR EXISTS (SELECT 1 FROM outbox_in_flight) AS busy";
    wait_for("the start-up's events are handled", || async {
        let mut conn = t.state.pool.get().await.expect("conn");
        let row: Busy = diesel_async::RunQueryDsl::get_result(diesel::sql_query(sql), &mut conn).await.expect("busy");
        !row.busy
    })
    .await;
}

/// Creates an endpoint for `events` at `url`; returns (id, secret).
pub async fn endpoint<S, B>(app: &S, admin: &str, url: &str, events: &[&str]) -> (Uuid, String)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let created = expect(app, 201, post(WEBHOOKS, admin, json!({"url": url, "events": events}))).await;
    let id = created["id"].as_str().and_then(|s| Uuid::parse_str(s).ok()).expect("endpoint id");
    (id, created["secret"].as_str().expect("secret shown on creation").to_owned())
}

/// Verifies a received request with the Standard Webhooks reference library.
pub fn verify(secret: &str, received: &Received) -> Result<(), String> {
    let webhook = standardwebhooks::Webhook::new(secret).map_err(|e| format!("secret: {e:?}"))?;
    let mut headers = http::HeaderMap::new();
    for (name, value) in &received.headers {
        let name = http::HeaderName::from_bytes(name.as_bytes()).map_err(|e| e.to_string())?;
        let value = http::HeaderValue::from_str(value).map_err(|e| e.to_string())?;
        headers.append(name, value);
    }
    webhook.verify(&received.body, &headers).map_err(|e| format!("{e:?}"))
}

/// The `type` of each request, in arrival order.
pub fn types(received: &[Received]) -> Vec<String> {
    received.iter().map(|r| r.json()["type"].as_str().unwrap_or("").to_owned()).collect()
}
