//! Helpers of the purchasing, transfer and stock-alert tests (docs/purchasing-and-transfers.md):
//! suppliers and purchase orders made through the API, a manager's token, event counts.

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::http::StatusCode;
use actix_web::test::TestRequest;
use postgres_toolkit::DbPool;
use serde_json::{json, Value};
use tally_tests::{bearer, call, login, register, ADMIN_EMAIL, ADMIN_PASSWORD};

use crate::commerce_support::{post, scalar};

pub const SUPPLIERS: &str = "/api/v1/warehouse/suppliers";
pub const PURCHASE_ORDERS: &str = "/api/v1/warehouse/purchase-orders";
pub const TRANSFERS: &str = "/api/v1/warehouse/transfers";

/// The seeded `manager` role's id (docs/identity.md).
const MANAGER_ROLE_ID: &str = "01900000-0000-7000-8000-000000000003";

/// Registers a user and has the admin grant it `manager`; returns its access token.
pub async fn manager<S, B>(app: &S, email: &str) -> String
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (id, token) = register(app, email, "password-1").await;
    let admin = login(app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let request = TestRequest::post()
        .uri(&format!("/api/v1/identity/users/{id}/roles"))
        .insert_header(bearer(&admin))
        .set_json(json!({ "role_id": MANAGER_ROLE_ID }));
    let (status, _, body) = call(app, request).await;
    assert_eq!(status, StatusCode::OK, "granting manager to {email} failed: {body}");
    token
}

pub async fn supplier<S, B>(app: &S, token: &str, name: &str) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let body = json!({"name": name, "email": format!("{}@supplier.example", name.to_lowercase()),
                      "currency": "EUR", "lead_time_days": 7});
    let (status, body) = post(app, token, SUPPLIERS, body).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"].clone()
}

/// A draft purchase order of `supplier` to `location` with `lines` of (product, quantity, unit cost).
pub async fn draft_po<S, B>(
    app: &S,
    token: &str,
    supplier: &Value,
    location: &Value,
    lines: &[(&Value, i64, i64)],
) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let lines: Vec<Value> = lines
        .iter()
        .map(|(product, quantity, cost)| json!({"product_id": product["id"], "quantity": quantity, "unit_cost": cost}))
        .collect();
    let body = json!({"supplier_id": supplier["id"], "location_id": location["id"], "currency": "EUR", "lines": lines});
    let (status, body) = post(app, token, PURCHASE_ORDERS, body).await;
    assert_eq!(status, StatusCode::CREATED, "{body}");
    body["data"].clone()
}

/// [`draft_po`], submitted.
pub async fn ordered_po<S, B>(
    app: &S,
    token: &str,
    supplier: &Value,
    location: &Value,
    lines: &[(&Value, i64, i64)],
) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let po = draft_po(app, token, supplier, location, lines).await;
    let (status, body) =
        post(app, token, &format!("{PURCHASE_ORDERS}/{}/submit", po["id"].as_str().expect("id")), json!({})).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(body["data"]["status"], "ordered");
    body["data"].clone()
}

/// How many events named `name` the outbox holds for `aggregate`.
pub async fn events(pool: &DbPool, name: &str, aggregate: &str) -> i64 {
    scalar(
        pool,
        &format!("SELECT count(*) AS n FROM outbox_events WHERE name = '{name}' AND aggregate_id = '{aggregate}'"),
    )
    .await
}

/// Runs `request` while another transaction holds inventory record `inventory_id` locked; once
/// `request` waits for that lock, the holder soft-deletes the record and commits: the record is gone
/// by the time the request's transaction gets it (a concurrent `DELETE /inventory/{id}`).
pub async fn deleted_while_waiting<F: std::future::Future>(pool: &DbPool, inventory_id: &str, request: F) -> F::Output {
    use diesel_async::SimpleAsyncConnection;
    let mut holder = pool.get().await.expect("conn");
    let lock = format!("BEGIN; SELECT 1 FROM inventory WHERE id = '{inventory_id}' FOR UPDATE");
    SimpleAsyncConnection::batch_execute(&mut *holder, &lock).await.expect("lock");
    let delete = async {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let waiting = "SELECT count(*) AS n FROM pg_stat_activity \
                       WHERE wait_event_type = 'Lock' AND datname = current_database()";
        while scalar(pool, waiting).await == 0 {
            assert!(std::time::Instant::now() < deadline, "the request never waited for the record");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let delete =
            format!("UPDATE inventory SET deleted_at = now(), updated_at = now() WHERE id = '{inventory_id}'; COMMIT");
        SimpleAsyncConnection::batch_execute(&mut *holder, &delete).await.expect("delete");
    };
    let (answer, ()) = futures_util::future::join(request, delete).await;
    answer
}

/// Runs a statement (test set-up by SQL).
pub async fn exec(pool: &DbPool, sql: &str) {
    use diesel_async::RunQueryDsl;
    let mut conn = pool.get().await.expect("conn");
    diesel::sql_query(sql).execute(&mut conn).await.unwrap_or_else(|e| panic!("{sql}: {e}"));
}
