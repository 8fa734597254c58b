//! Request writes sharing a commit (`postgres_toolkit::shared_commit`): creations and order changes
//! that arrive together go in one transaction, and each request still gets the answer it would have
//! got alone, with nothing half-written when one of them fails.

use actix_web::test::init_service;
use api::build_app;
use async_trait::async_trait;
use crm_domain::{Customer, CustomerRepository, NewCustomer, RepoError};
use crm_postgres::PgCustomerRepository;
use diesel::sql_types::Integer;
use diesel_async::{AsyncPgConnection, RunQueryDsl};
use futures_util::future::join_all;
use order_domain::{OrderChange, OrderRepository};
use order_postgres::PgOrderRepository;
use postgres_toolkit::shared_commit::{SharedCommit, TransactionWrite, WriteError};
use serde_json::json;
use tally_tests::{login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::commerce_support::{customer, line, order, product, scalar};

fn new_customer(email: &str) -> crm_domain::CustomerCreated {
    let input = NewCustomer { name: format!("Buyer {email}"), email: email.to_owned(), ..NewCustomer::default() };
    Customer::new(input, OffsetDateTime::now_utc()).expect("a valid customer")
}

async fn count(t: &TestApp, sql: &str) -> i64 {
    scalar(&t.state.pool, sql).await
}

#[actix_web::test]
async fn creations_arriving_together_share_one_commit_and_each_is_written_whole() {
    let t = TestApp::start().await;
    let repository = PgCustomerRepository::new(t.state.pool.clone());
    // Every other one with the optional fields and another status: the batch's rows (one insert per
    // table for all twenty) are written NULL where nothing was given, and each answer is its own row.
    let created: Vec<_> = (0..20)
        .map(|n| {
            let mut input = NewCustomer {
                name: format!("Buyer {n}"),
                email: format!("together-{n}@example.com"),
                ..NewCustomer::default()
            };
            // None, one or two tags, in turn: each row gets its own slice of the batch's tags.
            input.tags = (0..n % 3).map(|k| format!("t{n}-{k}")).collect();
            if n % 2 == 1 {
                input.phone = Some(format!("+1555000{n:04}"));
                input.source = Some("referral".to_owned());
                input.status = Some(crm_domain::CustomerStatus::Prospect);
            }
            Customer::new(input, OffsetDateTime::now_utc()).expect("a valid customer")
        })
        .collect();
    let saved = join_all(created.iter().map(|c| repository.create(c))).await;
    for (answer, asked) in saved.iter().zip(&created) {
        let customer = answer.as_ref().expect("created");
        let asked = &asked.customer;
        assert_eq!(customer.id, asked.id);
        assert_eq!(
            (&customer.email, &customer.phone, &customer.source, &customer.tags, customer.status),
            (&asked.email, &asked.phone, &asked.source, &asked.tags, asked.status),
            "the row as asked"
        );
        assert_eq!(customer.version, 1);
    }
    assert_eq!(repository.creation_counts(), (1, 20), "(transactions, creations): all twenty in one");
    let prospects =
        "SELECT count(*) AS n FROM customer_status_history WHERE to_status = 'prospect' AND from_status IS NULL";
    assert_eq!(count(&t, prospects).await, 10, "each history row its own customer's");
    let without =
        "SELECT count(*) AS n FROM customers WHERE email LIKE 'together-%' AND phone IS NULL AND source IS NULL";
    assert_eq!(count(&t, without).await, 10);
    let ids: Vec<String> = created.iter().map(|c| format!("'{}'", c.customer.id)).collect();
    let ids = ids.join(",");
    assert_eq!(count(&t, &format!("SELECT count(*) AS n FROM customers WHERE id IN ({ids})")).await, 20);
    let history = format!("SELECT count(*) AS n FROM customer_status_history WHERE customer_id IN ({ids})");
    assert_eq!(count(&t, &history).await, 20, "one history row each");
    let events =
        format!("SELECT count(*) AS n FROM outbox_events WHERE name = 'customer.created' AND aggregate_id IN ({ids})");
    assert_eq!(count(&t, &events).await, 20, "one event each");
    let tagged = format!("SELECT count(*) AS n FROM customers WHERE id IN ({ids}) AND tags = ARRAY['t' || split_part(name, ' ', 2) || '-0']");
    assert_eq!(count(&t, &tagged).await, 7, "the rows with one tag (n = 1, 4, ... 19) hold it as stored");
}

#[actix_web::test]
async fn a_taken_email_in_a_batch_fails_alone_and_the_others_are_created() {
    let t = TestApp::start().await;
    let repository = PgCustomerRepository::new(t.state.pool.clone());
    repository.create(&new_customer("taken@example.com")).await.expect("the first owner");
    // A taken address (another case) among fresh ones, and one address asked twice at once.
    let asked = [
        new_customer("fresh-1@example.com"),
        new_customer("TAKEN@example.com"),
        new_customer("fresh-2@example.com"),
        new_customer("twice@example.com"),
        new_customer("twice@example.com"),
        new_customer("fresh-3@example.com"),
    ];
    let answers = join_all(asked.iter().map(|c| repository.create(c))).await;
    let refused: Vec<usize> = answers.iter().enumerate().filter(|(_, a)| a.is_err()).map(|(i, _)| i).collect();
    assert_eq!(refused, vec![1, 4], "{answers:?}");
    for at in refused {
        assert_eq!(answers[at].as_ref().err(), Some(&RepoError::Conflict { field: "email" }));
    }
    assert_eq!(count(&t, "SELECT count(*) AS n FROM customers WHERE email LIKE 'fresh-%'").await, 3);
    assert_eq!(count(&t, "SELECT count(*) AS n FROM customers WHERE email = 'twice@example.com'").await, 1);
    assert_eq!(count(&t, "SELECT count(*) AS n FROM customers WHERE email = 'taken@example.com'").await, 1);
    // Nothing of a refused creation is left: one history row and one event per customer. Each
    // comparison is one statement, one snapshot: the admin's own customer record may be created
    // (by the registration subscriber) at any moment between two statements.
    let history = "SELECT (SELECT count(*) FROM customer_status_history) - (SELECT count(*) FROM customers) AS n";
    assert_eq!(count(&t, history).await, 0, "one history row per customer");
    let events = "SELECT (SELECT count(*) FROM outbox_events WHERE name = 'customer.created') \
                  - (SELECT count(*) FROM customers) AS n";
    assert_eq!(count(&t, events).await, 0, "one event per customer");
}

/// `count` orders of one line each, confirmable.
async fn pending_orders(t: &TestApp, count: usize) -> Vec<Uuid> {
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "SHARED-1").await;
    let buyer = customer(&t.state.pool).await;
    let mut ids = Vec::new();
    for _ in 0..count {
        let placed = order(&app, &admin, buyer, json!({})).await;
        let id = placed["id"].as_str().expect("an id").to_owned();
        line(&app, &admin, &id, widget["id"].as_str().expect("a product"), 1, 100).await;
        ids.push(id.parse::<Uuid>().expect("a uuid"));
    }
    ids
}

fn sql_list(ids: &[Uuid]) -> String {
    ids.iter().map(|id| format!("'{id}'")).collect::<Vec<_>>().join(",")
}

async fn events_named(t: &TestApp, ids: &[Uuid], name: &str) -> i64 {
    let sql = format!(
        "SELECT count(*) AS n FROM outbox_events WHERE aggregate_id IN ({}) AND name = '{name}'",
        sql_list(ids)
    );
    count(t, &sql).await
}

/// Each order's confirmation, decided on the order as it is now.
async fn confirmations(repository: &PgOrderRepository, ids: &[Uuid], now: OffsetDateTime) -> Vec<OrderChange> {
    let mut changes = Vec::new();
    for id in ids {
        changes.push(repository.get(*id).await.expect("loaded").confirm(now).expect("confirmable"));
    }
    changes
}

#[actix_web::test]
async fn order_confirmations_together_share_a_commit_and_a_later_change_of_one_is_stale() {
    let t = TestApp::start().await;
    let ids = pending_orders(&t, 12).await;
    let repository = PgOrderRepository::new(t.state.pool.clone());
    let now = OffsetDateTime::now_utc();
    let mut changes = confirmations(&repository, &ids, now).await;
    // Decided on the same version as the first confirmation (same order: the next transaction).
    let first = repository.get(ids[0]).await.expect("loaded");
    changes.push(first.cancel(now).expect("cancellable"));
    let answers = join_all(changes.iter().map(|change| repository.save(change))).await;
    assert!(answers[..12].iter().all(Result::is_ok), "{answers:?}");
    assert_eq!(answers[12], Err(RepoError::Stale));
    assert_eq!(repository.save_counts(), (2, 13), "the twelve in one transaction, the stale change after them");
    let confirmed =
        format!("SELECT count(*) AS n FROM orders WHERE status = 'confirmed' AND id IN ({})", sql_list(&ids));
    assert_eq!(count(&t, &confirmed).await, 12);
    assert_eq!(events_named(&t, &ids, "order.confirmed").await, 12);
    assert_eq!(events_named(&t, &ids, "order.cancelled").await, 0, "the stale change left nothing behind");
}

#[actix_web::test]
async fn a_stale_change_in_a_shared_transaction_fails_alone_and_the_others_land() {
    let t = TestApp::start().await;
    let ids = pending_orders(&t, 7).await;
    let repository = PgOrderRepository::new(t.state.pool.clone());
    let now = OffsetDateTime::now_utc();
    let changes = confirmations(&repository, &ids, now).await;
    // Another writer moves the last order after its confirmation was decided.
    let moved = ids[6];
    let bump = format!("UPDATE orders SET version = version + 1 WHERE id = '{moved}' RETURNING 1::bigint AS n");
    assert_eq!(count(&t, &bump).await, 1);
    let answers = join_all(changes.iter().map(|change| repository.save(change))).await;
    assert!(answers[..6].iter().all(Result::is_ok), "{answers:?}");
    assert_eq!(answers[6], Err(RepoError::Stale));
    // Tried together (one transaction, rolled back by the missed compare-and-set), then one by one.
    assert_eq!(repository.save_counts(), (8, 14));
    assert_eq!(events_named(&t, &ids[..6], "order.confirmed").await, 6);
    assert_eq!(events_named(&t, &[moved], "order.confirmed").await, 0);
    let still_pending = format!("SELECT count(*) AS n FROM orders WHERE id = '{moved}' AND status = 'pending'");
    assert_eq!(count(&t, &still_pending).await, 1);
}

#[actix_web::test]
async fn line_edits_together_share_a_commit_and_each_order_gets_its_own_line_and_totals() {
    let t = TestApp::start().await;
    let ids = pending_orders(&t, 6).await;
    let repository = PgOrderRepository::new(t.state.pool.clone());
    let now = OffsetDateTime::now_utc();
    let mut changes = Vec::new();
    for (n, id) in (1_i64..).zip(&ids) {
        let order = repository.get(*id).await.expect("loaded");
        let line = order_domain::NewLine {
            product_id: order.lines[0].product_id,
            quantity: n,
            unit_price: 50,
            currency: order.currency,
            description: None,
            sku: None,
        };
        changes.push(order.add_line(line, now).expect("editable"));
    }
    let answers = join_all(changes.iter().map(|change| repository.save(change))).await;
    assert!(answers.iter().all(Result::is_ok), "{answers:?}");
    assert_eq!(repository.save_counts(), (1, 6), "the six edits in one transaction");
    // One UPDATE for the six headers, each line inserted behind it: every order its own line and total.
    for (n, id) in (1_i64..).zip(&ids) {
        let total = count(&t, &format!("SELECT total AS n FROM orders WHERE id = '{id}'")).await;
        assert_eq!(total, 100 + 50 * n, "order {n}");
        let lines = count(&t, &format!("SELECT count(*) AS n FROM order_lines WHERE order_id = '{id}'")).await;
        assert_eq!(lines, 2, "order {n}");
        let saved = repository.get(*id).await.expect("loaded");
        assert_eq!(saved.version, changes[usize::try_from(n - 1).expect("small")].order.version);
    }
}

/// A row of a table whose foreign key is checked at `COMMIT`: a write that fails there.
struct DeferredChild {
    id: i32,
    parent: i32,
}

#[async_trait]
impl TransactionWrite for DeferredChild {
    type Written = ();
    type Key = i32;

    fn key(&self) -> i32 {
        self.id
    }

    async fn write(&self, conn: &AsyncPgConnection) -> Result<(), diesel::result::Error> {
        let mut conn = conn;
        diesel::sql_query("INSERT INTO deferred_child (id, parent) VALUES ($1, $2)")
            .bind::<Integer, _>(self.id)
            .bind::<Integer, _>(self.parent)
            .execute(&mut conn)
            .await
            .map(|_| ())
    }
}

#[actix_web::test]
async fn a_shared_transaction_whose_commit_the_server_refuses_is_done_again_write_by_write() {
    let t = TestApp::start().await;
    let setup = "CREATE TABLE deferred_parent (id int PRIMARY KEY); INSERT INTO deferred_parent VALUES (1);
        CREATE TABLE deferred_child (id int PRIMARY KEY,
            parent int REFERENCES deferred_parent DEFERRABLE INITIALLY DEFERRED)";
    let mut conn = t.state.pool.get().await.expect("conn");
    diesel_async::SimpleAsyncConnection::batch_execute(&mut *conn, setup).await.expect(setup);
    drop(conn);
    let writes = SharedCommit::new(t.state.pool.clone());
    let answers =
        join_all([DeferredChild { id: 1, parent: 1 }, DeferredChild { id: 2, parent: 99 }].map(|w| writes.write(w)))
            .await;
    // The server answered `COMMIT` with an error: nothing landed, so each write is done again alone
    // and gets its own answer (docs/bounded-work.md); only a lost connection leaves the outcome unknown.
    assert!(answers[0].is_ok(), "the innocent write lands: {:?}", answers[0]);
    assert!(matches!(answers[1], Err(WriteError::Db(_))), "the refused one fails alone: {:?}", answers[1]);
    assert_eq!(writes.counts(), (3, 4), "tried together, then each alone");
    assert_eq!(count(&t, "SELECT count(*) AS n FROM deferred_child").await, 1);
}

#[actix_web::test]
async fn a_shared_transaction_kept_waiting_by_a_lock_lets_the_other_writes_go_alone() {
    let t = TestApp::start().await;
    let ids = pending_orders(&t, 2).await;
    let held = ids[0];
    let repository = PgOrderRepository::new(t.state.pool.clone());
    let now = OffsetDateTime::now_utc();
    let [held_change, free_change]: [OrderChange; 2] =
        confirmations(&repository, &ids, now).await.try_into().expect("two confirmations");
    // Another transaction holds the first order's row until the second order's confirmation lands.
    let mut holder = t.state.pool.get().await.expect("conn");
    let lock = format!("BEGIN; SELECT 1 FROM orders WHERE id = '{held}' FOR UPDATE");
    diesel_async::SimpleAsyncConnection::batch_execute(&mut *holder, &lock).await.expect("lock");
    let both = futures_util::future::join(repository.save(&held_change), async {
        let free_saved = repository.save(&free_change).await;
        diesel_async::SimpleAsyncConnection::batch_execute(&mut *holder, "COMMIT").await.expect("unlock");
        free_saved
    });
    // Without a lock timeout the shared transaction would wait for the holder, which waits for it; and
    // the free order must be answered while the held one still waits in its own transaction.
    let (held_saved, free_saved) =
        tokio::time::timeout(std::time::Duration::from_secs(20), both).await.expect("the free order went alone");
    assert_eq!(free_saved, Ok(()));
    assert_eq!(held_saved, Ok(()), "done alone once the row was free");
    assert_eq!(repository.save_counts(), (3, 4), "tried together, then each alone");
    assert_eq!(events_named(&t, &ids, "order.confirmed").await, 2);
}
