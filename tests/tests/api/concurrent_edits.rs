//! Edits that race: a write is saved only over the version it was read at, and a lost race is
//! re-read and decided again, so concurrent edits of different fields of one record all land
//! (`shared_kernel::application::settle_edit`).

use actix_web::test::init_service;
use api::build_app;
use crm_domain::{CompanyChanges, CustomerChanges, RepoError};
use diesel_async::RunQueryDsl;
use futures_util::future::join_all;
use serde_json::{json, Value};
use tally_tests::{call, login, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::crm_support::{admin_id, days_from_today, expect, get, id_of, new_customer, post, put, BASE};

const ROUNDS: usize = 6;

async fn sql(t: &TestApp, statement: &str, id: Uuid) {
    let mut conn = t.state.pool.get().await.expect("conn");
    diesel::sql_query(statement)
        .bind::<diesel::sql_types::Uuid, _>(id)
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("{statement}: {e}"));
}

/// Sends every request at once; asserts each answered 200.
async fn all_ok<S, B>(app: &S, requests: Vec<actix_web::test::TestRequest>)
where
    S: actix_web::dev::Service<
        actix_http::Request,
        Response = actix_web::dev::ServiceResponse<B>,
        Error = actix_web::Error,
    >,
    B: actix_web::body::MessageBody,
{
    for (status, _, body) in join_all(requests.into_iter().map(|request| call(app, request))).await {
        assert_eq!(status.as_u16(), 200, "{body}");
    }
}

#[actix_web::test]
async fn a_stale_write_is_refused_and_changes_nothing() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Ann", "email": "ann@example.com"})).await);
    let company = id_of(&expect(&app, 201, post(&format!("{BASE}/companies"), &admin, json!({"name": "Acme"}))).await);
    let crm = &t.state.crm;
    let now = OffsetDateTime::now_utc();

    let read = crm.customers.find_by_id(customer).await.expect("read").expect("customer");
    sql(&t, "UPDATE customers SET name = 'Changed meanwhile' WHERE id = $1", customer).await;
    let renamed = read.update_details(CustomerChanges { name: Some("Stale".into()), ..Default::default() }, now);
    let refused = crm.customers.update(&renamed.expect("valid")).await;
    assert!(matches!(refused, Err(RepoError::Stale)), "{refused:?}");
    let stored = crm.customers.find_by_id(customer).await.expect("read").expect("customer");
    assert_eq!(stored.name, "Changed meanwhile");

    let read = crm.companies.find_by_id(company).await.expect("read").expect("company");
    sql(&t, "UPDATE companies SET industry = 'Tools' WHERE id = $1", company).await;
    let renamed = read.update(CompanyChanges { name: Some("Stale".into()), ..Default::default() }, now);
    let refused = crm.companies.update(&renamed.expect("valid")).await;
    assert!(matches!(refused, Err(RepoError::Stale)), "{refused:?}");
    let stored = crm.companies.find_by_id(company).await.expect("read").expect("company");
    assert_eq!((stored.name.as_str(), stored.industry.as_deref()), ("Acme", Some("Tools")));

    sql(&t, "UPDATE companies SET deleted_at = now() WHERE id = $1", company).await;
    let gone = crm.companies.update(&stored).await;
    assert!(matches!(gone, Err(RepoError::NotFound)), "a deleted record is missing, not stale: {gone:?}");
    t.stop().await;
}

#[actix_web::test]
async fn racing_edits_of_a_customer_all_land() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (rep, _) = register_staff(&app, "rep@example.com", "password-1").await;
    let me = admin_id(&t).await;
    let id = id_of(&new_customer(&app, &admin, json!({"name": "Ann", "email": "ann@example.com"})).await);
    let at = |tail: &str| format!("{BASE}/customers/{id}{tail}");
    for round in 0..ROUNDS {
        let (name, owner, tag) = (format!("Ann {round}"), if round % 2 == 0 { rep } else { me }, format!("t{round}"));
        all_ok(
            &app,
            vec![
                put(&at(""), &admin, json!({"name": name})),
                post(&at("/assign"), &admin, json!({"assigned_to": owner})),
                put(&at("/tags"), &admin, json!({"tags": [tag]})),
                put(&at(""), &admin, json!({"phone": "+380441234567"})),
            ],
        )
        .await;
        let stored = expect(&app, 200, get(&at(""), &admin)).await;
        let expected = (name.as_str(), owner.to_string(), json!([tag]), "+380441234567");
        let found = (
            stored["name"].as_str().unwrap_or_default(),
            stored["assigned_to"].as_str().unwrap_or_default().to_owned(),
            stored["tags"].clone(),
            stored["phone"].as_str().unwrap_or_default(),
        );
        assert_eq!(found, expected, "round {round}: every edit landed");
    }
    t.stop().await;
}

#[actix_web::test]
async fn racing_edits_of_a_company_and_a_deal_all_land() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let me = admin_id(&t).await;
    let company = id_of(&expect(&app, 201, post(&format!("{BASE}/companies"), &admin, json!({"name": "Acme"}))).await);
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Ann", "email": "ann@example.com"})).await);
    let deal_body = json!({"customer_id": customer, "assigned_to": me, "name": "Plan", "value": 1000, "currency": "USD",
                           "expected_close_date": days_from_today(30)});
    let deal = id_of(&expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal_body)).await);
    let company_at = format!("{BASE}/companies/{company}");
    let deal_at = |tail: &str| format!("{BASE}/deals/{deal}/{tail}");
    for round in 0..ROUNDS {
        let (name, site, value) = (format!("Acme {round}"), format!("https://acme{round}.example.com"), 1000 + round);
        all_ok(
            &app,
            vec![
                put(&company_at, &admin, json!({"name": name})),
                put(&company_at, &admin, json!({"website": site})),
                put(&deal_at("basic-info"), &admin, json!({"name": name})),
                put(&deal_at("value"), &admin, json!({"value": value})),
            ],
        )
        .await;
        let stored = expect(&app, 200, get(&company_at, &admin)).await;
        assert_eq!((stored["name"].as_str(), stored["website"].as_str()), (Some(name.as_str()), Some(site.as_str())));
        let stored = expect(&app, 200, get(&format!("{BASE}/deals/{deal}"), &admin)).await;
        assert_eq!((stored["name"].as_str(), stored["value"].as_u64()), (Some(name.as_str()), Some(value as u64)));
    }
    t.stop().await;
}

#[actix_web::test]
async fn attendees_added_at_once_are_all_kept() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Ann", "email": "ann@example.com"})).await);
    let log = json!({"customer_id": customer, "type": "meeting", "direction": "outbound", "subject": "Demo",
                     "started_at": "2026-03-01T10:00:00Z"});
    let id = id_of(&expect(&app, 201, post(&format!("{BASE}/interactions"), &admin, log)).await);
    let mut people = Vec::new();
    for n in 0..8 {
        people.push(register_staff(&app, &format!("attendee{n}@example.com"), "password-1").await.0);
    }
    let at = |tail: &str| format!("{BASE}/interactions/{id}/{tail}");
    let adds = people.iter().map(|person| post(&at("attendees"), &admin, json!({"attendee_id": person})));
    let mut requests: Vec<_> = adds.collect();
    requests.push(put(&at("outcome"), &admin, json!({"outcome": "successful"})));
    requests.push(put(&at("content"), &admin, json!({"subject": "Demo, second part"})));
    all_ok(&app, requests).await;

    let stored = expect(&app, 200, get(&format!("{BASE}/interactions/{id}"), &admin)).await;
    let mut kept: Vec<Value> = stored["attendees"].as_array().expect("attendees").clone();
    kept.sort_by_key(Value::to_string);
    let mut expected: Vec<Value> = people.iter().map(|p| json!(p)).collect();
    expected.sort_by_key(Value::to_string);
    assert_eq!(kept, expected, "every attendee added at once is kept");
    assert_eq!(
        (stored["outcome"].as_str(), stored["subject"].as_str()),
        (Some("successful"), Some("Demo, second part"))
    );
    t.stop().await;
}
