//! Interactions through the HTTP API: logging, joined lists, ending, edits, attendees, follow-ups.

use actix_web::test::init_service;
use api::build_app;
use futures_util::future::join_all;
use serde_json::{json, Value};
use tally_tests::{login, register, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::crm_support::{
    admin_id, code, delete, expect, get, id_of, new_customer, post, put, reject, strip_roles, BASE,
};

fn log(customer: Uuid, kind: &str, subject: &str, started_at: &str) -> Value {
    json!({"customer_id": customer, "type": kind, "direction": "outbound", "subject": subject, "started_at": started_at})
}

fn ids(list: &Value) -> Vec<Value> {
    list.as_array().expect("list").iter().map(|i| i["id"].clone()).collect()
}

#[actix_web::test]
async fn logged_interactions_list_with_joined_names() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let me = admin_id(&t).await;
    let (helper, _) = register(&app, "helper@example.com", "password-1").await;
    let acme = id_of(&expect(&app, 201, post(&format!("{BASE}/companies"), &admin, json!({"name": "Acme"}))).await);
    let contact = id_of(
        &new_customer(&app, &admin, json!({"name": "Cora", "email": "cora@acme.test", "company_id": acme})).await,
    );
    let solo = id_of(&new_customer(&app, &admin, json!({"name": "Solo", "email": "solo@example.com"})).await);

    let mut body = log(contact, "call", " Intro call ", "2026-03-01T10:00:00Z");
    body["attendees"] = json!([helper, helper, me]);
    body["description"] = json!("first contact");
    let call = expect(&app, 201, post(&format!("{BASE}/interactions"), &admin, body)).await;
    assert_eq!((call["subject"].as_str(), call["type"].as_str()), (Some("Intro call"), Some("call")));
    assert_eq!(call["company_id"], json!(acme), "defaults to the customer's company");
    assert_eq!(call["created_by"], json!(me));
    assert_eq!(call["attendees"], json!([helper, me]), "duplicates dropped");
    assert!(call["ended_at"].is_null() && call["duration_sec"].is_null() && call["outcome"].is_null());
    assert_eq!(call["follow_up_required"], false);
    let meeting = expect(
        &app,
        201,
        post(&format!("{BASE}/interactions"), &admin, log(solo, "meeting", "Demo", "2026-03-02T09:00:00Z")),
    )
    .await;
    let note = expect(
        &app,
        201,
        post(&format!("{BASE}/interactions"), &admin, log(contact, "note", "Memo", "2026-02-01T08:00:00Z")),
    )
    .await;

    let read = expect(&app, 200, get(&format!("{BASE}/interactions/{}", id_of(&call)), &admin)).await;
    assert_eq!(read["description"], "first contact");
    let all = expect(&app, 200, get(&format!("{BASE}/interactions"), &admin)).await;
    assert_eq!(ids(&all), vec![meeting["id"].clone(), call["id"].clone(), note["id"].clone()], "started_at descending");
    let first = &all[1];
    assert_eq!((first["customer_name"].as_str(), first["company_name"].as_str()), (Some("Cora"), Some("Acme")));
    assert_eq!(first["created_by_name"], "Administrator");
    assert!(all[0]["company_name"].is_null());

    let list = |path: String| get(&format!("{BASE}/interactions/{path}"), &admin);
    assert_eq!(
        ids(&expect(&app, 200, list(format!("customer/{contact}"))).await),
        vec![call["id"].clone(), note["id"].clone()]
    );
    assert_eq!(ids(&expect(&app, 200, list(format!("company/{acme}"))).await).len(), 2);
    assert_eq!(ids(&expect(&app, 200, list("type/meeting".into())).await), vec![meeting["id"].clone()]);
    assert_eq!(ids(&expect(&app, 200, list(format!("created-by/{me}"))).await).len(), 3);
    assert_eq!(ids(&expect(&app, 200, list(format!("created-by/{helper}"))).await).len(), 0);
    let paged = expect(&app, 200, list(format!("customer/{contact}?page=2&page_size=1"))).await;
    assert_eq!(ids(&paged), vec![note["id"].clone()]);
    reject(&app, 400, "VALIDATION_ERROR", list("type/fax".into())).await;
    reject(&app, 404, "CUSTOMER_NOT_FOUND", list(format!("customer/{}", Uuid::now_v7()))).await;
    reject(&app, 404, "NOT_FOUND", list(format!("company/{}", Uuid::now_v7()))).await;
    reject(&app, 400, "INVALID_UUID", list("customer/nope".into())).await;
    t.stop().await;
}

#[actix_web::test]
async fn logging_rejections() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "C", "email": "c@example.com"})).await);
    let base = log(customer, "call", "Hello", "2026-03-01T10:00:00Z");
    let with = |key: &str, value: Value| {
        let mut body = base.clone();
        body[key] = value;
        post(&format!("{BASE}/interactions"), &admin, body)
    };
    reject(&app, 404, "CUSTOMER_NOT_FOUND", with("customer_id", json!(Uuid::now_v7()))).await;
    reject(&app, 404, "NOT_FOUND", with("company_id", json!(Uuid::now_v7()))).await;
    let error = reject(&app, 404, "USER_NOT_FOUND", with("attendees", json!([Uuid::now_v7()]))).await;
    assert!(error["details"]["attendees"].is_string(), "{error}");
    for (key, value) in [
        ("type", json!("fax")),
        ("direction", json!("sideways")),
        ("subject", json!("s".repeat(256))),
        ("subject", json!("  ")),
        ("started_at", json!("yesterday")),
    ] {
        let error = reject(&app, 400, "VALIDATION_ERROR", with(key, value)).await;
        assert!(error["details"][key].is_string(), "{key}: {error}");
    }
    t.stop().await;
}

#[actix_web::test]
async fn ending_computes_the_duration_once() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "C", "email": "c@example.com"})).await);
    let start = |subject: &str| {
        post(&format!("{BASE}/interactions"), &admin, log(customer, "call", subject, "2026-03-01T10:00:00Z"))
    };
    let id = id_of(&expect(&app, 201, start("One")).await);
    let end = format!("{BASE}/interactions/{id}/end");
    reject(&app, 400, "VALIDATION_ERROR", put(&end, &admin, json!({"ended_at": "2026-03-01T09:59:59Z"}))).await;
    let ended = expect(&app, 200, put(&end, &admin, json!({"ended_at": "2026-03-01T10:01:30.900Z"}))).await;
    assert_eq!(ended["duration_sec"], 90, "whole seconds");
    assert!(ended["ended_at"].as_str().is_some_and(|t| t.starts_with("2026-03-01T10:01:30")));
    reject(&app, 409, "INTERACTION_ALREADY_ENDED", put(&end, &admin, json!({"ended_at": "2026-03-01T11:00:00Z"})))
        .await;
    let other = id_of(&expect(&app, 201, start("Two")).await);
    let zoned = expect(
        &app,
        200,
        put(&format!("{BASE}/interactions/{other}/end"), &admin, json!({"ended_at": "2026-03-01T13:00:00+02:00"})),
    )
    .await;
    assert_eq!(zoned["duration_sec"], 3600);
    assert_eq!(zoned["ended_at"], "2026-03-01T11:00:00Z", "stored and answered in UTC");
    reject(
        &app,
        404,
        "NOT_FOUND",
        put(
            &format!("{BASE}/interactions/{}/end", Uuid::now_v7()),
            &admin,
            json!({"ended_at": "2026-03-01T11:00:00Z"}),
        ),
    )
    .await;
    t.stop().await;
}

#[actix_web::test]
async fn content_outcome_attendees_and_delete() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (helper, user) = register_staff(&app, "helper@example.com", "password-1").await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "C", "email": "c@example.com"})).await);
    let id = id_of(
        &expect(
            &app,
            201,
            post(&format!("{BASE}/interactions"), &admin, log(customer, "email", "Hi", "2026-03-01T10:00:00Z")),
        )
        .await,
    );
    let at = |action: &str| format!("{BASE}/interactions/{id}/{action}");

    let edited =
        expect(&app, 200, put(&at("content"), &admin, json!({"subject": "Pricing", "description": "sent the sheet"})))
            .await;
    assert_eq!((edited["subject"].as_str(), edited["description"].as_str()), (Some("Pricing"), Some("sent the sheet")));
    reject(&app, 400, "VALIDATION_ERROR", put(&at("content"), &admin, json!({"subject": ""}))).await;
    let outcome = expect(&app, 200, put(&at("outcome"), &admin, json!({"outcome": "no_answer"}))).await;
    assert_eq!(outcome["outcome"], "no_answer");
    let cleared = expect(&app, 200, put(&at("outcome"), &admin, json!({"outcome": null}))).await;
    assert!(cleared["outcome"].is_null());
    reject(&app, 400, "VALIDATION_ERROR", put(&at("outcome"), &admin, json!({}))).await;
    reject(&app, 400, "VALIDATION_ERROR", put(&at("outcome"), &admin, json!({"outcome": "great"}))).await;

    let added = expect(&app, 200, post(&at("attendees"), &admin, json!({"attendee_id": helper}))).await;
    assert_eq!(added["attendees"], json!([helper]));
    let again = expect(&app, 200, post(&at("attendees"), &admin, json!({"attendee_id": helper}))).await;
    assert_eq!(again["attendees"], json!([helper]), "a duplicate is not added");
    reject(&app, 404, "USER_NOT_FOUND", post(&at("attendees"), &admin, json!({"attendee_id": Uuid::now_v7()}))).await;
    let removed = expect(&app, 200, delete(&format!("{}/{helper}", at("attendees")), &admin)).await;
    assert_eq!(removed["attendees"], json!([]));
    reject(&app, 404, "NOT_FOUND", delete(&format!("{}/{helper}", at("attendees")), &admin)).await;

    // The `staff` role may delete interactions; a user without roles may not even read them.
    let (nobody_id, nobody) = register(&app, "nobody@example.com", "password-1").await;
    strip_roles(&t, nobody_id).await;
    reject(&app, 403, "FORBIDDEN", get(&format!("{BASE}/interactions/{id}"), &nobody)).await;
    reject(&app, 403, "FORBIDDEN", put(&at("content"), &nobody, json!({"subject": "x"}))).await;
    expect(&app, 204, delete(&format!("{BASE}/interactions/{id}"), &user)).await;
    reject(&app, 404, "NOT_FOUND", get(&format!("{BASE}/interactions/{id}"), &admin)).await;
    reject(&app, 404, "NOT_FOUND", delete(&format!("{BASE}/interactions/{id}"), &admin)).await;
    assert_eq!(expect(&app, 200, get(&format!("{BASE}/interactions"), &admin)).await, json!([]));
    t.stop().await;
}

#[actix_web::test]
async fn follow_ups_oldest_due_first_with_filters() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (seller, user) = register_staff(&app, "seller@example.com", "password-1").await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "C", "email": "c@example.com"})).await);
    let mut made = Vec::new();
    for (token, due) in [
        (&admin, Some("2026-04-10T09:00:00Z")),
        (&admin, Some("2026-04-01T09:00:00Z")),
        (&user, None),
        (&admin, Some("2026-05-01T09:00:00Z")),
    ] {
        let id = id_of(
            &expect(
                &app,
                201,
                post(&format!("{BASE}/interactions"), token, log(customer, "call", "F", "2026-03-01T10:00:00Z")),
            )
            .await,
        );
        let body = json!({"follow_up_required": true, "follow_up_date": due, "follow_up_notes": "call back"});
        let set = expect(&app, 200, put(&format!("{BASE}/interactions/{id}/follow-up"), &admin, body)).await;
        assert_eq!(
            (set["follow_up_required"].as_bool(), set["follow_up_notes"].as_str()),
            (Some(true), Some("call back"))
        );
        made.push(json!(id));
    }
    // One that no longer needs a follow-up is left out.
    let done = id_of(
        &expect(
            &app,
            201,
            post(&format!("{BASE}/interactions"), &admin, log(customer, "call", "Done", "2026-03-01T10:00:00Z")),
        )
        .await,
    );
    expect(
        &app,
        200,
        put(&format!("{BASE}/interactions/{done}/follow-up"), &admin, json!({"follow_up_required": false})),
    )
    .await;

    let all = expect(&app, 200, get(&format!("{BASE}/interactions/follow-ups"), &admin)).await;
    assert_eq!(
        ids(&all),
        vec![made[1].clone(), made[0].clone(), made[3].clone(), made[2].clone()],
        "oldest date first, undated last"
    );
    assert_eq!(all[0]["customer_name"], "C");
    let due =
        expect(&app, 200, get(&format!("{BASE}/interactions/follow-ups?due_before=2026-04-15T00:00:00Z"), &admin))
            .await;
    assert_eq!(ids(&due), vec![made[1].clone(), made[0].clone()]);
    let by_seller =
        expect(&app, 200, get(&format!("{BASE}/interactions/follow-ups?created_by={seller}"), &admin)).await;
    assert_eq!(ids(&by_seller), vec![made[2].clone()]);
    reject(&app, 400, "VALIDATION_ERROR", get(&format!("{BASE}/interactions/follow-ups?due_before=soon"), &admin))
        .await;
    reject(&app, 400, "INVALID_UUID", get(&format!("{BASE}/interactions/follow-ups?created_by=nope"), &admin)).await;
    t.stop().await;
}

#[actix_web::test]
async fn ten_simultaneous_ends_end_it_once() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "C", "email": "c@example.com"})).await);
    let id = id_of(
        &expect(
            &app,
            201,
            post(&format!("{BASE}/interactions"), &admin, log(customer, "call", "Race", "2026-03-01T10:00:00Z")),
        )
        .await,
    );
    let end = format!("{BASE}/interactions/{id}/end");
    let bodies = (0..10).map(|i| json!({"ended_at": format!("2026-03-01T10:00:{i:02}Z")}));
    let results = join_all(bodies.map(|body| tally_tests::call(&app, put(&end, &admin, body)))).await;
    let ended = results.iter().filter(|(s, _, _)| s.as_u16() == 200).count();
    let refused =
        results.iter().filter(|(s, _, b)| s.as_u16() == 409 && code(b) == "INTERACTION_ALREADY_ENDED").count();
    assert_eq!((ended, refused), (1, 9), "{:?}", results.iter().map(|r| r.2.clone()).collect::<Vec<_>>());
    let stored = expect(&app, 200, get(&format!("{BASE}/interactions/{id}"), &admin)).await;
    let second: i64 = stored["ended_at"].as_str().and_then(|t| t[17..19].parse().ok()).expect("ended_at");
    assert_eq!(stored["duration_sec"].as_i64(), Some(second), "the duration matches the end that won");
    t.stop().await;
}
