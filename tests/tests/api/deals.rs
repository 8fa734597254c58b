//! Deals through the HTTP API: create, edits, the stage table, closed-deal rules, statistics.

use actix_web::test::init_service;
use api::build_app;
use futures_util::future::join_all;
use serde_json::{json, Value};
use tally_tests::{login, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::crm_support::{
    admin_id, code, count, days_from_today, delete, event_names, expect, get, id_of, keys_of, new_customer, post, put,
    reject, today, BASE,
};

fn deal_body(customer: Uuid, rep: Uuid, name: &str, value: i64, currency: &str) -> Value {
    json!({"customer_id": customer, "assigned_to": rep, "name": name, "value": value, "currency": currency,
           "expected_close_date": days_from_today(30)})
}

#[actix_web::test]
async fn create_read_list_and_delete_a_deal() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = admin_id(&t).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Buyer", "email": "buyer@example.com"})).await);
    let body = json!({"customer_id": customer, "assigned_to": rep, "name": " Annual plan ", "value": 120_000,
                      "expected_close_date": days_from_today(30), "tags": ["q3"]});
    let deal = expect(&app, 201, post(&format!("{BASE}/deals"), &admin, body)).await;
    let id = id_of(&deal);
    assert_eq!(deal["name"], "Annual plan");
    assert_eq!((deal["value"].as_i64(), deal["currency"].as_str()), (Some(120_000), Some("USD")));
    assert_eq!((deal["stage"].as_str(), deal["probability"].as_i64()), (Some("lead"), Some(10)));
    assert_eq!(
        (deal["source"].as_str(), deal["expected_close_date"].as_str()),
        (Some("inbound"), Some(days_from_today(30).as_str()))
    );
    let read = expect(&app, 200, get(&format!("{BASE}/deals/{id}"), &admin)).await;
    assert!(read["actual_close_date"].is_null() && read["loss_reason"].is_null());
    assert_eq!(read["tags"], json!(["q3"]));
    let listed = expect(&app, 200, get(&format!("{BASE}/deals?page_size=5"), &admin)).await;
    assert_eq!(listed[0]["id"], json!(id));
    let in_stage = expect(&app, 200, get(&format!("{BASE}/deals/stage/lead"), &admin)).await;
    assert_eq!(in_stage.as_array().map(Vec::len), Some(1));
    assert_eq!(expect(&app, 200, get(&format!("{BASE}/deals/stage/proposal"), &admin)).await, json!([]));
    let by_customer = expect(&app, 200, get(&format!("{BASE}/deals?customer_id={customer}"), &admin)).await;
    assert_eq!(by_customer.as_array().map(Vec::len), Some(1));
    reject(&app, 400, "VALIDATION_ERROR", get(&format!("{BASE}/deals/stage/won"), &admin)).await;
    reject(&app, 400, "INVALID_UUID", get(&format!("{BASE}/deals/not-a-uuid"), &admin)).await;
    assert_eq!(event_names(&app, &admin, id).await, vec!["customer.deal.created"]);

    let (_, user) = register_staff(&app, "seller@example.com", "password-1").await;
    reject(&app, 403, "FORBIDDEN", delete(&format!("{BASE}/deals/{id}"), &user)).await;
    expect(&app, 204, delete(&format!("{BASE}/deals/{id}"), &admin)).await;
    reject(&app, 404, "NOT_FOUND", get(&format!("{BASE}/deals/{id}"), &admin)).await;
    reject(&app, 404, "NOT_FOUND", delete(&format!("{BASE}/deals/{id}"), &admin)).await;
    t.stop().await;
}

#[actix_web::test]
async fn create_rejections() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = admin_id(&t).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Buyer", "email": "buyer@example.com"})).await);
    let with = |patch: Value| {
        let mut body = deal_body(customer, rep, "Deal", 100, "USD");
        for (k, v) in patch.as_object().expect("object") {
            body[k] = v.clone();
        }
        post(&format!("{BASE}/deals"), &admin, body)
    };
    for (patch, status, error_code, field) in [
        (json!({"customer_id": Uuid::now_v7()}), 404, "CUSTOMER_NOT_FOUND", None),
        (json!({"assigned_to": Uuid::now_v7()}), 404, "USER_NOT_FOUND", Some("assigned_to")),
        (json!({"value": 0}), 400, "VALIDATION_ERROR", Some("value")),
        (json!({"value": -5}), 400, "VALIDATION_ERROR", Some("value")),
        (json!({"expected_close_date": today()}), 400, "VALIDATION_ERROR", Some("expected_close_date")),
        (json!({"expected_close_date": "30/06/2030"}), 400, "VALIDATION_ERROR", Some("expected_close_date")),
        (json!({"name": "n".repeat(201)}), 400, "VALIDATION_ERROR", Some("name")),
        (json!({"currency": "ABC"}), 400, "VALIDATION_ERROR", Some("currency")),
        (json!({"currency": "US"}), 400, "VALIDATION_ERROR", Some("currency")),
        (json!({"source": "cold"}), 400, "VALIDATION_ERROR", Some("source")),
        (json!({"customer_id": "nope"}), 400, "VALIDATION_ERROR", Some("customer_id")),
    ] {
        let error = reject(&app, status, error_code, with(patch.clone())).await;
        if let Some(field) = field {
            assert!(error["details"][field].is_string(), "{patch}: {error}");
        }
    }
    let eur = expect(&app, 201, with(json!({"currency": "eur", "source": "referral"}))).await;
    assert_eq!((eur["currency"].as_str(), eur["source"].as_str()), (Some("EUR"), Some("referral")));
    t.stop().await;
}

#[actix_web::test]
async fn probability_follows_the_stage_table() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = admin_id(&t).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Buyer", "email": "buyer@example.com"})).await);
    let table = [
        ("lead", 10),
        ("qualified", 25),
        ("proposal", 50),
        ("negotiation", 75),
        ("closed_won", 100),
        ("closed_lost", 0),
    ];
    for (stage, probability) in table {
        let deal =
            expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal_body(customer, rep, stage, 100, "USD")))
                .await;
        let moved =
            expect(&app, 200, put(&format!("{BASE}/deals/{}/stage", id_of(&deal)), &admin, json!({"stage": stage})))
                .await;
        let keys = keys_of(&moved);
        assert_eq!(keys, vec!["id", "probability", "stage", "updated_at"]);
        assert_eq!(
            (moved["stage"].as_str(), moved["probability"].as_i64()),
            (Some(stage), Some(probability)),
            "{stage}"
        );
        let read = expect(&app, 200, get(&format!("{BASE}/deals/{}", id_of(&deal)), &admin)).await;
        let closed = stage.starts_with("closed");
        assert_eq!(read["actual_close_date"].as_str(), closed.then(today).as_deref(), "{stage}: closes today");
    }
    // Skipping ahead and moving back to an earlier open stage are both allowed.
    let deal =
        expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal_body(customer, rep, "Walk", 100, "USD"))).await;
    let stage = format!("{BASE}/deals/{}/stage", id_of(&deal));
    for (to, probability) in [("negotiation", 75), ("qualified", 25), ("proposal", 50)] {
        let moved = expect(&app, 200, put(&stage, &admin, json!({"stage": to}))).await;
        assert_eq!(moved["probability"].as_i64(), Some(probability), "{to}");
    }
    reject(&app, 400, "VALIDATION_ERROR", put(&stage, &admin, json!({"stage": "won"}))).await;
    let names = event_names(&app, &admin, id_of(&deal)).await;
    assert_eq!(names.iter().filter(|n| *n == "customer.deal.stage_changed").count(), 3);
    let history = count(&t, "SELECT count(*) AS n FROM deal_stage_history WHERE deal_id = $1", id_of(&deal)).await;
    assert_eq!(history, 4, "creation row plus three moves");
    t.stop().await;
}

#[actix_web::test]
async fn closed_deals_cannot_move_or_change() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = admin_id(&t).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Buyer", "email": "buyer@example.com"})).await);
    let create = |name: &str| post(&format!("{BASE}/deals"), &admin, deal_body(customer, rep, name, 5_000, "USD"));
    let won = id_of(&expect(&app, 201, create("Won")).await);
    let lost = id_of(&expect(&app, 201, create("Lost")).await);
    let at = |id: Uuid, action: &str| format!("{BASE}/deals/{id}/{action}");

    let closed = days_from_today(-1);
    let win = expect(&app, 200, post(&at(won, "win"), &admin, json!({"close_date": closed}))).await;
    let keys = keys_of(&win);
    assert_eq!(keys, vec!["actual_close_date", "id", "probability", "stage", "updated_at"]);
    assert_eq!((win["stage"].as_str(), win["probability"].as_i64()), (Some("closed_won"), Some(100)));
    assert_eq!(win["actual_close_date"].as_str(), Some(closed.as_str()));
    let lose =
        expect(&app, 200, post(&at(lost, "lose"), &admin, json!({"close_date": closed, "reason": "budget"}))).await;
    assert_eq!((lose["stage"].as_str(), lose["probability"].as_i64()), (Some("closed_lost"), Some(0)));
    assert_eq!(lose["loss_reason"], "budget");

    for id in [won, lost] {
        reject(&app, 400, "MOVE_STAGE_FAILED", put(&at(id, "stage"), &admin, json!({"stage": "lead"}))).await;
        reject(&app, 400, "MOVE_STAGE_FAILED", post(&at(id, "win"), &admin, json!({"close_date": today()}))).await;
        reject(&app, 400, "MOVE_STAGE_FAILED", post(&at(id, "lose"), &admin, json!({"close_date": today()}))).await;
        reject(&app, 409, "DEAL_CLOSED", put(&at(id, "basic-info"), &admin, json!({"name": "Renamed"}))).await;
        reject(&app, 409, "DEAL_CLOSED", put(&at(id, "value"), &admin, json!({"value": 1}))).await;
    }
    assert_eq!(
        event_names(&app, &admin, won).await,
        ["customer.deal.created", "customer.deal.stage_changed", "customer.deal.won"]
    );
    assert_eq!(
        event_names(&app, &admin, lost).await,
        ["customer.deal.created", "customer.deal.stage_changed", "customer.deal.lost"]
    );
    reject(&app, 400, "VALIDATION_ERROR", post(&at(Uuid::now_v7(), "win"), &admin, json!({}))).await;
    reject(&app, 404, "NOT_FOUND", post(&at(Uuid::now_v7(), "win"), &admin, json!({"close_date": today()}))).await;
    t.stop().await;
}

#[actix_web::test]
async fn basic_info_and_value_edits_echo_what_changed() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = admin_id(&t).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Buyer", "email": "buyer@example.com"})).await);
    let id = id_of(
        &expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal_body(customer, rep, "Plan", 100, "USD"))).await,
    );
    let at = |action: &str| format!("{BASE}/deals/{id}/{action}");
    let renamed = expect(&app, 200, put(&at("basic-info"), &admin, json!({"name": "Bigger plan"}))).await;
    let keys = keys_of(&renamed);
    assert_eq!((keys, renamed["name"].as_str()), (vec!["id", "name", "updated_at"], Some("Bigger plan")));
    let later = days_from_today(90);
    let dated = expect(&app, 200, put(&at("basic-info"), &admin, json!({"expected_close_date": later}))).await;
    assert_eq!(dated["expected_close_date"].as_str(), Some(later.as_str()));
    reject(&app, 400, "VALIDATION_ERROR", put(&at("basic-info"), &admin, json!({"expected_close_date": today()})))
        .await;
    let revalued = expect(&app, 200, put(&at("value"), &admin, json!({"value": 250_000, "currency": "EUR"}))).await;
    let keys = keys_of(&revalued);
    assert_eq!(keys, vec!["currency", "id", "updated_at", "value"]);
    assert_eq!((revalued["value"].as_i64(), revalued["currency"].as_str()), (Some(250_000), Some("EUR")));
    reject(&app, 400, "VALIDATION_ERROR", put(&at("value"), &admin, json!({"value": 0}))).await;
    reject(&app, 400, "VALIDATION_ERROR", put(&at("value"), &admin, json!({"value": 5, "currency": "ZZZ"}))).await;
    t.stop().await;
}

#[actix_web::test]
async fn pipeline_and_won_statistics_are_aggregates() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = admin_id(&t).await;
    let empty = expect(&app, 200, get(&format!("{BASE}/deals/stats/pipeline"), &admin)).await;
    assert_eq!(
        empty,
        json!({"stats": {"lead": 0, "qualified": 0, "proposal": 0, "negotiation": 0, "closed_won": 0, "closed_lost": 0}})
    );
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Buyer", "email": "buyer@example.com"})).await);
    let gone = id_of(&new_customer(&app, &admin, json!({"name": "Gone", "email": "gone@example.com"})).await);
    let close = json!({"close_date": today()});
    for (who, value, currency, stage) in [
        (customer, 1_000, "USD", Some("win")),
        (customer, 2_500, "USD", Some("win")),
        (customer, 700, "EUR", Some("win")),
        (customer, 300, "USD", Some("lose")),
        (customer, 50, "USD", None),
        (gone, 9_999, "USD", Some("win")),
    ] {
        let deal =
            expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal_body(who, rep, "D", value, currency))).await;
        if let Some(action) = stage {
            expect(&app, 200, post(&format!("{BASE}/deals/{}/{action}", id_of(&deal)), &admin, close.clone())).await;
        }
    }
    let deleted =
        expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal_body(customer, rep, "Del", 77, "USD"))).await;
    expect(&app, 200, post(&format!("{BASE}/deals/{}/win", id_of(&deleted)), &admin, close.clone())).await;
    expect(&app, 204, delete(&format!("{BASE}/deals/{}", id_of(&deleted)), &admin)).await;
    expect(&app, 204, delete(&format!("{BASE}/customers/{gone}"), &admin)).await;

    let pipeline = expect(&app, 200, get(&format!("{BASE}/deals/stats/pipeline"), &admin)).await;
    assert_eq!(
        pipeline["stats"],
        json!({"lead": 1, "qualified": 0, "proposal": 0, "negotiation": 0, "closed_won": 3, "closed_lost": 1})
    );
    let won = expect(&app, 200, get(&format!("{BASE}/deals/stats/won"), &admin)).await;
    assert_eq!(
        won,
        json!({"count": 3, "total_value": 3_500, "currency": "USD", "by_currency": {"EUR": 700, "USD": 3_500}})
    );
    t.stop().await;
}

#[actix_web::test]
async fn ten_simultaneous_wins_close_the_deal_once() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = admin_id(&t).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Buyer", "email": "buyer@example.com"})).await);
    let id = id_of(
        &expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal_body(customer, rep, "Race", 100, "USD"))).await,
    );
    let win = format!("{BASE}/deals/{id}/win");
    let results =
        join_all((0..10).map(|_| tally_tests::call(&app, post(&win, &admin, json!({"close_date": today()}))))).await;
    let won = results.iter().filter(|(s, _, _)| s.as_u16() == 200).count();
    let refused = results.iter().filter(|(s, _, b)| s.as_u16() == 400 && code(b) == "MOVE_STAGE_FAILED").count();
    assert_eq!((won, refused), (1, 9), "{:?}", results.iter().map(|r| r.2.clone()).collect::<Vec<_>>());
    assert_eq!(count(&t, "SELECT count(*) AS n FROM deal_stage_history WHERE deal_id = $1", id).await, 2);
    t.stop().await;
}
