//! Request writes sharing a commit (`infrastructure::shared_commit`): creations and order changes
//! that arrive together go in one transaction, and each request still gets the answer it would have
//! got alone, with nothing half-written when one of them fails.

use actix_web::test::init_service;
use api::build_app;
use crm_domain::{Customer, CustomerRepository, NewCustomer, RepoError};
use futures_util::future::join_all;
use infrastructure::crm::PgCustomerRepository;
use infrastructure::orders::PgOrderRepository;
use order_domain::OrderRepository;
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
    let created: Vec<_> = (0..20).map(|n| new_customer(&format!("together-{n}@example.com"))).collect();
    let saved = join_all(created.iter().map(|c| repository.create(c))).await;
    for (answer, asked) in saved.iter().zip(&created) {
        let customer = answer.as_ref().expect("created");
        assert_eq!(customer.id, asked.customer.id);
        assert_eq!(customer.version, 1);
    }
    let (transactions, writes) = repository.creation_counts();
    assert_eq!(writes, 20);
    assert!(transactions < writes, "{transactions} transactions for {writes} creations: none shared a commit");
    let ids: Vec<String> = created.iter().map(|c| format!("'{}'", c.customer.id)).collect();
    let ids = ids.join(",");
    assert_eq!(count(&t, &format!("SELECT count(*) AS n FROM customers WHERE id IN ({ids})")).await, 20);
    let history = format!("SELECT count(*) AS n FROM customer_status_history WHERE customer_id IN ({ids})");
    assert_eq!(count(&t, &history).await, 20, "one history row each");
    let events =
        format!("SELECT count(*) AS n FROM outbox_events WHERE name = 'customer.created' AND aggregate_id IN ({ids})");
    assert_eq!(count(&t, &events).await, 20, "one event each");
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
    // Nothing of a refused creation is left: one history row and one event per customer.
    let customers = count(&t, "SELECT count(*) AS n FROM customers").await;
    assert_eq!(count(&t, "SELECT count(*) AS n FROM customer_status_history").await, customers);
    let events = "SELECT count(*) AS n FROM outbox_events WHERE name = 'customer.created'";
    assert_eq!(count(&t, events).await, customers);
}

#[actix_web::test]
async fn order_confirmations_together_share_a_commit_and_a_stale_change_stays_its_own() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let widget = product(&app, &admin, "SHARED-1").await;
    let buyer = customer(&t.state.pool).await;
    let mut ids = Vec::new();
    for _ in 0..12 {
        let placed = order(&app, &admin, buyer, json!({})).await;
        let id = placed["id"].as_str().expect("an id").to_owned();
        line(&app, &admin, &id, widget["id"].as_str().expect("a product"), 1, 100).await;
        ids.push(id.parse::<Uuid>().expect("a uuid"));
    }
    let repository = PgOrderRepository::new(t.state.pool.clone());
    let now = OffsetDateTime::now_utc();
    let mut changes = Vec::new();
    for id in &ids {
        changes.push(repository.get(*id).await.expect("loaded").confirm(now).expect("confirmable"));
    }
    // Decided on the same version as the first confirmation: whichever lands second is stale.
    let first = repository.get(ids[0]).await.expect("loaded");
    changes.push(first.cancel(now).expect("cancellable"));
    let answers = join_all(changes.iter().map(|change| repository.save(change))).await;
    assert!(answers[..12].iter().all(Result::is_ok), "{answers:?}");
    assert_eq!(answers[12], Err(RepoError::Stale));
    let (transactions, writes) = repository.save_counts();
    assert_eq!(writes, 13);
    assert!(transactions < 12, "{transactions} transactions for {writes} changes");
    let list: Vec<String> = ids.iter().map(|id| format!("'{id}'")).collect();
    let list = list.join(",");
    let confirmed = format!("SELECT count(*) AS n FROM orders WHERE status = 'confirmed' AND id IN ({list})");
    assert_eq!(count(&t, &confirmed).await, 12);
    let events =
        format!("SELECT count(*) AS n FROM outbox_events WHERE aggregate_id IN ({list}) AND name = 'order.confirmed'");
    assert_eq!(count(&t, &events).await, 12);
    let cancelled =
        format!("SELECT count(*) AS n FROM outbox_events WHERE aggregate_id IN ({list}) AND name = 'order.cancelled'");
    assert_eq!(count(&t, &cancelled).await, 0, "the stale change left nothing behind");
}
