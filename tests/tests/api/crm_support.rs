//! Helpers of the customer-management tests: requests with a token, and the usual set-up steps.

use std::future::Future;
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::test::TestRequest;
use diesel_async::RunQueryDsl;
use serde_json::Value;
use tally_tests::{bearer, call, TestApp};
use uuid::Uuid;

pub const BASE: &str = "/api/v1/customer-mgmt";

pub fn get(uri: &str, token: &str) -> TestRequest {
    TestRequest::get().uri(uri).insert_header(bearer(token))
}

pub fn delete(uri: &str, token: &str) -> TestRequest {
    TestRequest::delete().uri(uri).insert_header(bearer(token))
}

pub fn post(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::post().uri(uri).insert_header(bearer(token)).set_json(body)
}

pub fn put(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::put().uri(uri).insert_header(bearer(token)).set_json(body)
}

pub fn patch(uri: &str, token: &str, body: Value) -> TestRequest {
    TestRequest::patch().uri(uri).insert_header(bearer(token)).set_json(body)
}

/// The error code of an error envelope.
pub fn code(body: &Value) -> &str {
    body["error"]["code"].as_str().unwrap_or("")
}

/// The field names of a JSON object, sorted.
pub fn keys_of(data: &Value) -> Vec<&str> {
    data.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default()
}

pub fn id_of(data: &Value) -> Uuid {
    data["id"].as_str().and_then(|s| Uuid::parse_str(s).ok()).unwrap_or_else(|| panic!("no id in {data}"))
}

/// The admin's user id (the test app creates the admin at start).
pub async fn admin_id(t: &TestApp) -> Uuid {
    let admin = t.state.identity.users.find_by_email(tally_tests::ADMIN_EMAIL).await.expect("lookup");
    admin.expect("admin exists").id
}

/// Takes every role from `user_id`, so it holds no permission at all.
pub async fn strip_roles(t: &TestApp, user_id: Uuid) {
    let mut conn = t.state.pool.get().await.expect("conn");
    diesel::sql_query("DELETE FROM user_roles WHERE user_id = $1")
        .bind::<diesel::sql_types::Uuid, _>(user_id)
        .execute(&mut conn)
        .await
        .expect("strip roles");
    t.state.identity.access.invalidate_user(user_id).await;
}

/// Runs one SQL count.
pub async fn count(t: &TestApp, sql: &str, id: Uuid) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = t.state.pool.get().await.expect("conn");
    let row: Count = diesel::sql_query(sql)
        .bind::<diesel::sql_types::Uuid, _>(id)
        .get_result(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("{sql}: {e}"));
    row.n
}

/// Polls `check` until it holds; panics with `what` after ten seconds.
pub async fn wait_for<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check().await {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// A date `days` from today (UTC), `YYYY-MM-DD`.
pub fn days_from_today(days: i64) -> String {
    (time::OffsetDateTime::now_utc().date() + time::Duration::days(days)).to_string()
}

pub fn today() -> String {
    days_from_today(0)
}

/// Sends `request`, asserts `expected`, returns `data`.
pub async fn expect<S, B>(app: &S, expected: u16, request: TestRequest) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (status, _, body) = call(app, request).await;
    assert_eq!(status.as_u16(), expected, "{body}");
    body["data"].clone()
}

/// Sends `request`, asserts the error `status` and `code`, returns the error object.
pub async fn reject<S, B>(app: &S, status: u16, error_code: &str, request: TestRequest) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (actual, _, body) = call(app, request).await;
    assert_eq!((actual.as_u16(), code(&body)), (status, error_code), "{body}");
    body["error"].clone()
}

/// Names of the events recorded for `aggregate_id`, oldest first.
pub async fn event_names<S, B>(app: &S, admin: &str, aggregate_id: Uuid) -> Vec<String>
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let data = expect(app, 200, get(&format!("/api/v1/events?aggregate_id={aggregate_id}&page_size=100"), admin)).await;
    let mut names: Vec<String> =
        data.as_array().expect("events").iter().filter_map(|e| e["name"].as_str().map(str::to_owned)).collect();
    names.reverse();
    names
}

/// Creates a customer with the admin token; returns its data.
pub async fn new_customer<S, B>(app: &S, admin: &str, body: Value) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    expect(app, 201, post(&format!("{BASE}/customers"), admin, body)).await
}
