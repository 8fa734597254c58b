//! A row lock held by another session: every write that meets it gives up within the lock timeout
//! (503 with `Retry-After`, nothing kept), and the queues it waited in keep moving (docs/bounded-work.md).
//! (A shared commit the server refuses is done again write by write: `shared_commits.rs`.)

use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::json;
use tally_tests::{bearer, call, login, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};

use super::Holder;
use crate::commerce_support::{customer, get, line, location, order, post, product, scalar, stock, wait_for};

const ORDERS: &str = "/api/v1/order-mgmt/orders";

fn short_lock_waits() -> TestOptions {
    TestOptions::default().with_env("DATABASE_LOCK_TIMEOUT", "300ms").with_env("BUS_RETRY_ATTEMPTS", "100")
}

#[actix_web::test]
async fn a_conditional_write_on_a_locked_row_gives_up_with_503_and_keeps_nothing() {
    let t = TestApp::start_with(short_lock_waits()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let id = customer(&t.state.pool).await;
    let path = format!("/api/v1/customer-mgmt/customers/{id}");
    let holder = Holder::start(&t.db.url, &format!("SELECT 1 FROM customers WHERE id = '{id}' FOR UPDATE")).await;
    let write = || {
        TestRequest::put()
            .uri(&path)
            .insert_header(bearer(&admin))
            .insert_header(("If-Match", "*"))
            .set_json(json!({"name": "Changed"}))
    };
    let (status, headers, body) = call(&app, write()).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (StatusCode::SERVICE_UNAVAILABLE, Some("SERVICE_UNAVAILABLE"))
    );
    assert!(headers.contains_key("retry-after"), "{headers:?}");
    holder.release().await;
    let (_, _, read) = call(&app, TestRequest::get().uri(&path).insert_header(bearer(&admin))).await;
    assert_eq!(read["data"]["name"], "Test Customer", "nothing of the refused write was kept");
    assert_eq!(call(&app, write()).await.0, StatusCode::OK, "the row is free again");
    t.stop().await;
}

#[actix_web::test]
async fn a_queued_order_change_on_a_locked_order_gives_up_and_the_queue_moves_on() {
    let t = TestApp::start_with(short_lock_waits()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let widget = product(&app, &admin, "W-LOCK").await;
    let widget_id = widget["id"].as_str().expect("id");
    let locked = order(&app, &admin, buyer, json!({})).await["id"].as_str().expect("id").to_owned();
    let free = order(&app, &admin, buyer, json!({})).await["id"].as_str().expect("id").to_owned();
    let holder = Holder::start(&t.db.url, &format!("SELECT 1 FROM orders WHERE id = '{locked}' FOR UPDATE")).await;
    let uri = |id: &str| format!("{ORDERS}/{id}/lines");
    let body = json!({"product_id": widget_id, "quantity": 1, "unit_price": 100, "currency": "USD"});
    let (locked_uri, free_uri) = (uri(&locked), uri(&free));
    // Both go through the worker's shared-commit queue, together.
    let (on_locked, on_free) =
        tokio::join!(post(&app, &admin, &locked_uri, body.clone()), post(&app, &admin, &free_uri, body.clone()));
    assert_eq!(on_free.0, StatusCode::CREATED, "{}", on_free.1);
    assert_eq!(on_locked.0, StatusCode::SERVICE_UNAVAILABLE, "{}", on_locked.1);
    // The queue is not stuck behind the lock.
    assert_eq!(post(&app, &admin, &free_uri, body.clone()).await.0, StatusCode::CREATED);
    holder.release().await;
    let (_, read) = get(&app, &admin, &format!("{ORDERS}/{locked}")).await;
    assert_eq!(read["data"]["lines"].as_array().map(Vec::len), Some(0), "nothing kept: {read}");
    t.stop().await;
}

#[actix_web::test]
async fn a_reservation_waiting_on_a_locked_record_delays_no_other_order() {
    let t = TestApp::start_with(short_lock_waits()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let buyer = customer(&t.state.pool).await;
    let here = location(&app, &admin, "LOCKS").await;
    let (widget, gadget) = (product(&app, &admin, "W-HELD").await, product(&app, &admin, "G-FREE").await);
    let held_stock = stock(&app, &admin, &widget, &here, 10).await;
    stock(&app, &admin, &gadget, &here, 10).await;
    let waiting = order(&app, &admin, buyer, json!({})).await["id"].as_str().expect("id").to_owned();
    line(&app, &admin, &waiting, widget["id"].as_str().expect("id"), 1, 100).await;
    let other = order(&app, &admin, buyer, json!({})).await["id"].as_str().expect("id").to_owned();
    line(&app, &admin, &other, gadget["id"].as_str().expect("id"), 1, 100).await;
    let record = held_stock["id"].as_str().expect("id");
    let holder = Holder::start(&t.db.url, &format!("SELECT 1 FROM inventory WHERE id = '{record}' FOR UPDATE")).await;
    assert_eq!(post(&app, &admin, &format!("{ORDERS}/{waiting}/confirm"), json!({})).await.0, StatusCode::OK);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(post(&app, &admin, &format!("{ORDERS}/{other}/confirm"), json!({})).await.0, StatusCode::OK);
    let reserved = |b: &serde_json::Value| b["data"]["reservation_status"] == "reserved";
    wait_for(&app, &admin, &format!("{ORDERS}/{other}"), "the other order's reservation", reserved).await;
    let (_, still) = get(&app, &admin, &format!("{ORDERS}/{waiting}")).await;
    assert_eq!(still["data"]["reservation_status"], "pending", "the locked record's order waits aside: {still}");
    holder.release().await;
    wait_for(&app, &admin, &format!("{ORDERS}/{waiting}"), "the held order's reservation", reserved).await;
    t.stop().await;
}

#[actix_web::test]
async fn a_connection_dropped_inside_its_transaction_frees_its_locks_at_once() {
    use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection, TransactionManager};
    type TxManager = <AsyncPgConnection as AsyncConnection>::TransactionManager;
    let t = TestApp::start().await;
    let id = customer(&t.state.pool).await;
    // A request's transaction, dropped mid-way (its client left) while it holds a row lock.
    let mut conn = t.state.pool.get().await.expect("conn");
    TxManager::begin_transaction(&mut *conn).await.expect("begin");
    conn.batch_execute(&format!("SELECT 1 FROM customers WHERE id = '{id}' FOR UPDATE")).await.expect("lock");
    drop(conn);
    // Another session gets the row at once; before, it waited until that connection's next checkout.
    let mut other = AsyncPgConnection::establish(&t.db.url).await.expect("conn");
    let mut free = false;
    for _ in 0..40 {
        let attempt = format!("BEGIN; SELECT 1 FROM customers WHERE id = '{id}' FOR UPDATE NOWAIT; ROLLBACK");
        match other.batch_execute(&attempt).await {
            Ok(()) => {
                free = true;
                break;
            }
            Err(_) => {
                let _ = other.batch_execute("ROLLBACK").await;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
    }
    assert!(free, "the dropped transaction's lock is released within two seconds");
    t.stop().await;
}

#[actix_web::test]
async fn a_write_whose_client_left_while_queued_is_never_done() {
    let t = TestApp::start_with(TestOptions::default().with_env("DATABASE_LOCK_TIMEOUT", "5s")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let served = tally_tests::Served::start(t.state.clone());
    // Another session is inserting this email and has not committed: a creation of the same email
    // waits for it inside the shared commit, and the worker's queue waits with it.
    let holder = Holder::start(
        &t.db.url,
        "INSERT INTO customers (id, name, email) VALUES (gen_random_uuid(), 'Other', 'taken@example.com')",
    )
    .await;
    let create = |email: &str| {
        let body = json!({"name": "Queued", "email": email}).to_string();
        let head = format!(
            "POST /api/v1/customer-mgmt/customers HTTP/1.1\r\nHost: tally\r\nAuthorization: Bearer {admin}\r\n\
             Content-Type: application/json\r\nContent-Length: {}",
            body.len()
        );
        (head, body)
    };
    let (head, body) = create("taken@example.com");
    let waiting = served.open(&head, body.as_bytes()).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    // Queued behind it; its client gives up and closes the connection.
    let (head, body) = create("left@example.com");
    let gone = served.open(&head, body.as_bytes()).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    drop(gone);
    tokio::time::sleep(Duration::from_millis(300)).await;
    holder.release().await;
    let (status, _) = tally_tests::served::read_answer(waiting).await;
    assert_eq!(status, 201, "the waiting creation lands once the other session rolled back");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let left = scalar(&t.state.pool, "SELECT count(*) AS n FROM customers WHERE email = 'left@example.com'").await;
    assert_eq!(left, 0, "the abandoned creation was never done");
    served.stop().await;
    t.stop().await;
}
