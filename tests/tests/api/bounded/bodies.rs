//! Bodies read whole before anything is held for them, within `REQUEST_TIMEOUT` (docs/bounded-work.md),
//! and preconditions judged only for requests that would otherwise succeed.

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::json;
use tally_tests::served::read_answer;
use tally_tests::{bearer, call, login, Served, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};
use tokio::io::AsyncWriteExt;

use crate::commerce_support::{customer, scalar};

const CUSTOMERS: &str = "/api/v1/customer-mgmt/customers";

#[actix_web::test]
async fn forty_stalled_bodies_hold_nothing_and_are_answered_408() {
    let options = TestOptions::default().with_env("REQUEST_TIMEOUT", "2s").with_env("DATABASE_POOL_SIZE", "4");
    let t = TestApp::start_with(options).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let id = customer(&t.state.pool).await;
    let served = Served::start(t.state.clone());
    let path = format!("{CUSTOMERS}/{id}");
    // Each sends a conditional write's head, announces 64 bytes and never sends them.
    let head = format!(
        "PUT {path} HTTP/1.1\r\nHost: tally\r\nAuthorization: Bearer {admin}\r\nIf-Match: *\r\n\
         Content-Type: application/json\r\nContent-Length: 64"
    );
    let mut stalled = Vec::new();
    for _ in 0..40 {
        stalled.push(served.open(&head, b"{\"name\":").await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Meanwhile a well-behaved caller reads and writes the same row (before: 5 s, then 503).
    let auth = format!("Bearer {admin}");
    let headers = [("Authorization", auth.as_str())];
    let read = tokio::time::timeout(Duration::from_secs(3), served.send("GET", &path, &headers, "")).await;
    assert_eq!(read.expect("answered while forty bodies stall").0, 200);
    let headers = [("Authorization", auth.as_str()), ("If-Match", "*")];
    let write = served.send("PUT", &path, &headers, r#"{"name": "Still Served"}"#);
    let (status, body) = tokio::time::timeout(Duration::from_secs(3), write).await.expect("answered");
    assert_eq!(status, 200, "{body}");
    // The stalled requests run out of time: 408 in the envelope, and nothing changed.
    let (status, body) = read_answer(stalled.pop().expect("a stalled request")).await;
    assert_eq!(status, 408, "{body}");
    assert_eq!(body["error"]["code"], "REQUEST_TIMEOUT", "{body}");
    let (_, _, read) = call(&app, TestRequest::get().uri(&path).insert_header(bearer(&admin))).await;
    assert_eq!(read["data"]["name"], "Still Served");
    served.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn a_body_trickled_a_byte_at_a_time_runs_out_of_time() {
    let t = TestApp::start_with(TestOptions::default().with_env("REQUEST_TIMEOUT", "1s")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let served = Served::start(t.state.clone());
    let body = json!({"name": "Slow Loris", "email": "loris@example.com"}).to_string();
    let head = format!(
        "POST {CUSTOMERS} HTTP/1.1\r\nHost: tally\r\nAuthorization: Bearer {admin}\r\n\
         Content-Type: application/json\r\nContent-Length: {}",
        body.len()
    );
    let mut stream = served.open(&head, b"").await;
    for byte in body.as_bytes().iter().take(8) {
        if stream.write_all(&[*byte]).await.is_err() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (status, answer) = read_answer(stream).await;
    assert_eq!((status, answer["error"]["code"].as_str()), (408, Some("REQUEST_TIMEOUT")), "{answer}");
    let created = scalar(&t.state.pool, "SELECT count(*) AS n FROM customers WHERE email = 'loris@example.com'").await;
    assert_eq!(created, 0, "nothing was created");
    served.stop().await;
    t.stop().await;
}

#[actix_web::test]
async fn a_failed_precondition_is_judged_only_for_an_otherwise_good_request() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let id = customer(&t.state.pool).await;
    let path = format!("{CUSTOMERS}/{id}");
    let stale = format!("\"{}-999\"", id.simple());
    let put = |body: &str| {
        TestRequest::put()
            .uri(&path)
            .insert_header(bearer(&admin))
            .insert_header(("If-Match", stale.as_str()))
            .insert_header(("Content-Type", "application/json"))
            .set_payload(body.to_owned())
    };
    for malformed in [r#"{"name": 5}"#, "{not json", r#"{"tags": "not a list"}"#] {
        let (status, _, body) = call(&app, put(malformed)).await;
        assert_eq!(status, StatusCode::BAD_REQUEST, "{malformed}: its own 400, not 412: {body}");
    }
    let (status, _, body) = call(&app, put(r#"{"name": "Changed"}"#)).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::PRECONDITION_FAILED, Some("PRECONDITION_FAILED"))
    );
    let delete =
        TestRequest::delete().uri(&path).insert_header(bearer(&admin)).insert_header(("If-Match", stale.as_str()));
    assert_eq!(call(&app, delete).await.0, StatusCode::PRECONDITION_FAILED);
    let (_, _, read) = call(&app, TestRequest::get().uri(&path).insert_header(bearer(&admin))).await;
    assert_eq!(read["data"]["name"], "Test Customer", "nothing changed");
    t.stop().await;
}
