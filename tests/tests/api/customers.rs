//! Customers through the HTTP API: create, read, edit, delete, uniqueness, lifecycle, permissions.

use actix_web::test::init_service;
use api::build_app;
use futures_util::future::join_all;
use futures_util::FutureExt;
use serde_json::json;
use shared_kernel::EventEnvelope;
use tally_tests::{call, login, register, register_staff, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use crate::crm_support::{
    admin_id, code, count, delete, event_names, expect, get, id_of, keys_of, new_customer, patch, post, put, reject,
    strip_roles, wait_for, BASE,
};

#[actix_web::test]
async fn customer_crud_and_response_shapes() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = admin_id(&t).await;
    let body = json!({"name": " Ada Lovelace ", "email": " Ada@Example.COM ", "phone": "+380 44 123 4567",
        "source": "referral", "tags": ["vip", " vip ", "b2b"], "assigned_to": rep});
    let c = new_customer(&app, &admin, body).await;
    let id = id_of(&c);
    assert_eq!(c["name"], "Ada Lovelace");
    assert_eq!(c["email"], "ada@example.com");
    assert_eq!(c["phone"], "+380441234567", "stored in E.164");
    assert_eq!(
        (c["status"].as_str(), c["tier"].as_str(), c["type"].as_str()),
        (Some("lead"), Some("free"), Some("individual"))
    );
    assert_eq!(c["tags"], json!(["vip", "b2b"]));
    assert_eq!(c["assigned_to"], json!(rep));
    assert!(c["churned_at"].is_null() && c["user_id"].is_null() && c["company_id"].is_null());
    assert!(c["created_at"].as_str().is_some_and(|t| t.ends_with('Z')));

    let read = expect(&app, 200, get(&format!("{BASE}/customers/{id}"), &admin)).await;
    assert_eq!(read["email"], "ada@example.com");
    let by_email = expect(&app, 200, get(&format!("{BASE}/customers/email/ADA@example.com"), &admin)).await;
    assert_eq!(id_of(&by_email), id, "email look-up is case-insensitive");
    reject(&app, 404, "CUSTOMER_NOT_FOUND", get(&format!("{BASE}/customers/email/nobody@example.com"), &admin)).await;
    reject(&app, 400, "INVALID_EMAIL", get(&format!("{BASE}/customers/email/not-an-email"), &admin)).await;

    // PUT echoes the id, the fields it changed and updated_at; `phone: null` clears it.
    let edited =
        expect(&app, 200, put(&format!("{BASE}/customers/{id}"), &admin, json!({"name": "Ada King", "phone": null})))
            .await;
    let keys = keys_of(&edited);
    assert_eq!(keys, vec!["id", "name", "phone", "updated_at"]);
    assert_eq!((edited["name"].as_str(), edited["phone"].is_null()), (Some("Ada King"), true));
    let tags_only = expect(&app, 200, put(&format!("{BASE}/customers/{id}"), &admin, json!({"tags": ["x"]}))).await;
    assert_eq!(tags_only["tags"], json!(["x"]));
    assert!(tags_only.get("name").is_none());
    reject(&app, 400, "INVALID_PHONE", put(&format!("{BASE}/customers/{id}"), &admin, json!({"phone": "12345"}))).await;

    let (status, _, body) = call(&app, delete(&format!("{BASE}/customers/{id}"), &admin)).await;
    assert_eq!((status.as_u16(), body), (204, serde_json::Value::Null));
    reject(&app, 404, "CUSTOMER_NOT_FOUND", get(&format!("{BASE}/customers/{id}"), &admin)).await;
    reject(&app, 404, "CUSTOMER_NOT_FOUND", delete(&format!("{BASE}/customers/{id}"), &admin)).await;
    reject(&app, 404, "CUSTOMER_NOT_FOUND", put(&format!("{BASE}/customers/{id}"), &admin, json!({"name": "X"}))).await;
    reject(&app, 400, "INVALID_UUID", get(&format!("{BASE}/customers/not-a-uuid"), &admin)).await;
    // A deleted customer frees its email.
    new_customer(&app, &admin, json!({"name": "Ada again", "email": "ada@example.com"})).await;
    t.stop().await;
}

#[actix_web::test]
async fn create_rejections_name_their_code_and_field() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let ghost = uuid::Uuid::now_v7();
    let cases = [
        (json!({"name": "A", "email": "not-an-email"}), 400, "INVALID_EMAIL", Some("email")),
        (json!({"name": "A", "email": "a@example.com", "phone": "0441234567"}), 400, "INVALID_PHONE", Some("phone")),
        (json!({"name": "A", "email": "a@example.com", "phone": "+999 1234"}), 400, "INVALID_PHONE", Some("phone")),
        (json!({"name": "n".repeat(256), "email": "a@example.com"}), 400, "VALIDATION_ERROR", Some("name")),
        (json!({"email": "a@example.com"}), 400, "VALIDATION_ERROR", Some("name")),
        (json!({"name": "A", "email": "a@example.com", "status": "vip"}), 400, "VALIDATION_ERROR", Some("status")),
        (
            json!({"name": "A", "email": "a@example.com", "tags": ["x".repeat(51)]}),
            400,
            "VALIDATION_ERROR",
            // The item itself is named (docs/conventions.md: every problem, precisely).
            Some("tags[0]"),
        ),
        (
            json!({"name": "A", "email": "a@example.com", "user_id": ghost, "company_id": ghost}),
            400,
            "VALIDATION_ERROR",
            Some("company_id"),
        ),
        (json!({"name": "A", "email": "a@example.com", "company_id": ghost}), 404, "NOT_FOUND", Some("company_id")),
        (
            json!({"name": "A", "email": "a@example.com", "assigned_to": ghost}),
            404,
            "USER_NOT_FOUND",
            Some("assigned_to"),
        ),
        (json!({"name": "A", "email": "a@example.com", "user_id": ghost}), 404, "USER_NOT_FOUND", Some("user_id")),
    ];
    for (body, status, error_code, field) in cases {
        let error = reject(&app, status, error_code, post(&format!("{BASE}/customers"), &admin, body.clone())).await;
        if let Some(field) = field {
            assert!(error["details"][field].is_string(), "{body}: {error}");
        }
    }
    let created =
        new_customer(&app, &admin, json!({"name": "Churned", "email": "c@example.com", "status": "churned"})).await;
    assert!(created["churned_at"].is_string(), "created churned carries churned_at");
    t.stop().await;
}

#[actix_web::test]
async fn email_is_unique_globally_or_per_company() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let company = |name: &str| post(&format!("{BASE}/companies"), &admin, json!({"name": name}));
    let acme = id_of(&expect(&app, 201, company("Acme")).await);
    let globex = id_of(&expect(&app, 201, company("Globex")).await);
    new_customer(&app, &admin, json!({"name": "Solo", "email": "sam@example.com"})).await;
    let error = reject(
        &app,
        409,
        "ALREADY_EXISTS",
        post(&format!("{BASE}/customers"), &admin, json!({"name": "Twin", "email": "SAM@example.com"})),
    )
    .await;
    assert!(error["details"]["email"].is_string(), "{error}");
    let at_acme =
        new_customer(&app, &admin, json!({"name": "Sam", "email": "sam@example.com", "company_id": acme})).await;
    assert_eq!(at_acme["type"], "company");
    reject(
        &app,
        409,
        "ALREADY_EXISTS",
        post(
            &format!("{BASE}/customers"),
            &admin,
            json!({"name": "Sam 2", "email": "sam@example.com", "company_id": acme}),
        ),
    )
    .await;
    let at_globex =
        new_customer(&app, &admin, json!({"name": "Sam G", "email": "sam@example.com", "company_id": globex})).await;
    // Several share the email: the newest, unless ?company_id= picks one.
    let newest = expect(&app, 200, get(&format!("{BASE}/customers/email/sam@example.com"), &admin)).await;
    assert_eq!(newest["id"], at_globex["id"]);
    let picked =
        expect(&app, 200, get(&format!("{BASE}/customers/email/sam@example.com?company_id={acme}"), &admin)).await;
    assert_eq!(picked["id"], at_acme["id"]);
    reject(&app, 400, "INVALID_UUID", get(&format!("{BASE}/customers/email/sam@example.com?company_id=nope"), &admin))
        .await;
    t.stop().await;
}

#[actix_web::test]
async fn twenty_simultaneous_creates_of_one_email_yield_one_customer() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let requests = (0..20).map(|i| {
        call(
            &app,
            post(
                &format!("{BASE}/customers"),
                &admin,
                json!({"name": format!("Racer {i}"), "email": "race@example.com"}),
            ),
        )
    });
    let results = join_all(requests).await;
    let created = results.iter().filter(|(s, _, _)| s.as_u16() == 201).count();
    let conflicts = results.iter().filter(|(s, _, b)| s.as_u16() == 409 && code(b) == "ALREADY_EXISTS").count();
    assert_eq!((created, conflicts), (1, 19), "{:?}", results.iter().map(|r| r.0).collect::<Vec<_>>());
    t.stop().await;
}

#[actix_web::test]
async fn status_lifecycle_follows_the_table_and_records_events() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let id = id_of(&new_customer(&app, &admin, json!({"name": "Life", "email": "life@example.com"})).await);
    let at = |action: &str| format!("{BASE}/customers/{id}/{action}");
    // lead cannot skip to customer or churn.
    reject(&app, 409, "INVALID_STATUS_TRANSITION", post(&at("convert"), &admin, json!({}))).await;
    reject(&app, 409, "INVALID_STATUS_TRANSITION", post(&at("churn"), &admin, json!({"reason": "x"}))).await;
    reject(&app, 409, "INVALID_STATUS_TRANSITION", post(&at("reactivate"), &admin, json!({}))).await;
    reject(&app, 409, "INVALID_STATUS_TRANSITION", patch(&at("status"), &admin, json!({"status": "customer"}))).await;

    let qualified = expect(&app, 200, post(&at("qualify"), &admin, json!({}))).await;
    let keys = keys_of(&qualified);
    assert_eq!((keys, qualified["status"].as_str()), (vec!["id", "status", "updated_at"], Some("prospect")));
    reject(&app, 409, "INVALID_STATUS_TRANSITION", post(&at("qualify"), &admin, json!({}))).await;
    let converted = expect(&app, 200, post(&at("convert"), &admin, json!({}))).await;
    assert_eq!(converted["status"], "customer");
    let churned = expect(&app, 200, post(&at("churn"), &admin, json!({"reason": "too expensive"}))).await;
    let keys = keys_of(&churned);
    assert_eq!((keys, churned["status"].as_str()), (vec!["churned_at", "id", "status"], Some("churned")));
    assert!(churned["churned_at"].is_string());
    reject(&app, 409, "INVALID_STATUS_TRANSITION", patch(&at("status"), &admin, json!({"status": "customer"}))).await;
    let reactivated = expect(&app, 200, post(&at("reactivate"), &admin, json!({}))).await;
    assert_eq!((reactivated["status"].as_str(), reactivated["churned_at"].is_null()), (Some("prospect"), true));
    // PATCH …/status performs the same moves.
    let patched =
        expect(&app, 200, patch(&at("status"), &admin, json!({"status": "customer", "reason": "signed"}))).await;
    assert_eq!(patched["status"], "customer");
    assert!(patched["message"].as_str().is_some_and(|m| m.contains("customer")));
    reject(&app, 400, "VALIDATION_ERROR", patch(&at("status"), &admin, json!({"status": "vip"}))).await;
    reject(
        &app,
        404,
        "CUSTOMER_NOT_FOUND",
        post(&format!("{BASE}/customers/{}/qualify", uuid::Uuid::now_v7()), &admin, json!({})),
    )
    .await;

    let names = event_names(&app, &admin, id).await;
    let expected = [
        "customer.created",
        "customer.status_changed",
        "customer.status_changed",
        "customer.converted",
        "customer.status_changed",
        "customer.churned",
        "customer.status_changed",
        "customer.status_changed",
        "customer.converted",
    ];
    assert_eq!(names, expected);
    let history = count(&t, "SELECT count(*) AS n FROM customer_status_history WHERE customer_id = $1", id).await;
    assert_eq!(history, 6, "creation row plus five moves");
    let reason = count(
        &t,
        "SELECT count(*) AS n FROM customer_status_history WHERE customer_id = $1 AND reason = 'too expensive'",
        id,
    )
    .await;
    assert_eq!(reason, 1);
    t.stop().await;
}

#[actix_web::test]
async fn ten_simultaneous_qualifies_move_once() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let id = id_of(&new_customer(&app, &admin, json!({"name": "Race", "email": "q@example.com"})).await);
    let results =
        join_all((0..10).map(|_| call(&app, post(&format!("{BASE}/customers/{id}/qualify"), &admin, json!({}))))).await;
    let moved = results.iter().filter(|(s, _, _)| s.as_u16() == 200).count();
    let rejected =
        results.iter().filter(|(s, _, b)| s.as_u16() == 409 && code(b) == "INVALID_STATUS_TRANSITION").count();
    assert_eq!((moved, rejected), (1, 9), "{:?}", results.iter().map(|r| (r.0, r.2.clone())).collect::<Vec<_>>());
    assert_eq!(count(&t, "SELECT count(*) AS n FROM customer_status_history WHERE customer_id = $1", id).await, 2);
    t.stop().await;
}

#[actix_web::test]
async fn tier_only_goes_up_and_assign_and_tags_replace() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let id = id_of(&new_customer(&app, &admin, json!({"name": "Tiers", "email": "tier@example.com"})).await);
    let at = |action: &str| format!("{BASE}/customers/{id}/{action}");
    let pro = expect(&app, 200, put(&at("tier"), &admin, json!({"tier": "pro"}))).await;
    assert_eq!((pro["tier"].as_str(), pro["email"].as_str()), (Some("pro"), Some("tier@example.com")));
    reject(&app, 409, "INVALID_TIER_CHANGE", put(&at("tier"), &admin, json!({"tier": "basic"}))).await;
    reject(&app, 409, "INVALID_TIER_CHANGE", put(&at("tier"), &admin, json!({"tier": "pro"}))).await;
    reject(&app, 400, "VALIDATION_ERROR", put(&at("tier"), &admin, json!({"tier": "gold"}))).await;
    assert!(event_names(&app, &admin, id).await.contains(&"customer.tier_upgraded".to_owned()));

    let (rep, _) = register(&app, "rep@example.com", "password-1").await;
    let assigned = expect(&app, 200, post(&at("assign"), &admin, json!({"assigned_to": rep}))).await;
    let keys = keys_of(&assigned);
    assert_eq!((keys, assigned["assigned_to"].clone()), (vec!["assigned_to", "id", "updated_at"], json!(rep)));
    let unassigned = expect(&app, 200, put(&at("assign"), &admin, json!({"assigned_to": null}))).await;
    assert!(unassigned["assigned_to"].is_null(), "PUT variant and null unassigns");
    reject(&app, 404, "USER_NOT_FOUND", post(&at("assign"), &admin, json!({"assigned_to": uuid::Uuid::now_v7()})))
        .await;
    reject(&app, 400, "VALIDATION_ERROR", post(&at("assign"), &admin, json!({}))).await;
    expect(&app, 200, put(&format!("/api/v1/identity/users/{rep}/suspend"), &admin, json!({}))).await;
    reject(&app, 404, "USER_NOT_FOUND", post(&at("assign"), &admin, json!({"assigned_to": rep}))).await;

    let tagged = expect(&app, 200, put(&at("tags"), &admin, json!({"tags": [" a ", "b", "a"]}))).await;
    assert_eq!((tagged["tags"].clone(), tagged["tier"].as_str()), (json!(["a", "b"]), Some("pro")));
    reject(&app, 400, "VALIDATION_ERROR", put(&at("tags"), &admin, json!({"tags": [""]}))).await;
    t.stop().await;
}

#[actix_web::test]
async fn permissions_guard_every_customer_endpoint() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (_, user) = register_staff(&app, "worker@example.com", "password-1").await;
    // The `staff` role creates, reads and updates, but cannot delete customers.
    let id = id_of(&new_customer(&app, &user, json!({"name": "Mine", "email": "mine@example.com"})).await);
    expect(&app, 200, post(&format!("{BASE}/customers/{id}/qualify"), &user, json!({}))).await;
    reject(&app, 403, "FORBIDDEN", delete(&format!("{BASE}/customers/{id}"), &user)).await;
    expect(&app, 204, delete(&format!("{BASE}/customers/{id}"), &admin)).await;

    let (guest_id, guest) = register(&app, "nobody@example.com", "password-1").await;
    strip_roles(&t, guest_id).await;
    for request in [
        get(&format!("{BASE}/customers"), &guest),
        get(&format!("{BASE}/customers/{id}"), &guest),
        post(&format!("{BASE}/customers"), &guest, json!({"name": "X", "email": "x@example.com"})),
        put(&format!("{BASE}/customers/{id}/tier"), &guest, json!({"tier": "pro"})),
    ] {
        reject(&app, 403, "FORBIDDEN", request).await;
    }
    reject(&app, 401, "UNAUTHORIZED", actix_web::test::TestRequest::get().uri(&format!("{BASE}/customers"))).await;
    t.stop().await;
}

#[actix_web::test]
async fn registered_users_become_customers_exactly_once() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let existing = new_customer(&app, &admin, json!({"name": "Pre", "email": "pre@example.com"})).await;
    let (pre_user, _) = register(&app, "PRE@example.com", "password-1").await;
    let (fresh_user, _) = register(&app, "fresh@example.com", "password-1").await;
    let linked_to = |email: &'static str, user: uuid::Uuid| {
        let request = get(&format!("{BASE}/customers/email/{email}"), &admin);
        let app = &app;
        async move {
            let (status, _, body) = call(app, request).await;
            status.as_u16() == 200 && body["data"]["user_id"] == json!(user)
        }
    };
    wait_for("the new user's customer", || linked_to("fresh@example.com", fresh_user)).await;
    wait_for("the existing customer linked", || linked_to("pre@example.com", pre_user)).await;
    let fresh = expect(&app, 200, get(&format!("{BASE}/customers/email/fresh@example.com"), &admin)).await;
    assert_eq!((fresh["status"].as_str(), fresh["tier"].as_str()), (Some("lead"), Some("free")));
    assert_eq!((fresh["source"].as_str(), fresh["name"].as_str()), (Some("website"), Some("Test User")));
    let pre = expect(&app, 200, get(&format!("{BASE}/customers/email/pre@example.com"), &admin)).await;
    assert_eq!(pre["id"], existing["id"], "linked, not duplicated");
    assert!(event_names(&app, &admin, id_of(&fresh)).await.contains(&"customer.created".to_owned()));

    // The same event delivered again, and again under a new id, changes nothing.
    let query = format!("/api/v1/events?aggregate_id={fresh_user}&name=identity.user.registered");
    let recorded = expect(&app, 200, get(&query, &admin)).await;
    let event: EventEnvelope = serde_json::from_value(recorded[0].clone()).expect("envelope");
    let copy = EventEnvelope::new(event.name.clone(), event.aggregate_id, event.data.clone());
    for e in [&event, &event, &copy] {
        t.state.bus.publish(e).await.expect("publish");
    }
    let handled = "SELECT count(*) AS n FROM inbox WHERE event_id = $1 AND handler = 'crm.customer_from_user'";
    wait_for("the copy handled", || count(&t, handled, copy.id).map(|n| n == 1)).await;
    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    assert_eq!(count(&t, handled, event.id).await, 1);
    let customers_of_user = "SELECT count(*) AS n FROM customers WHERE user_id = $1";
    assert_eq!(count(&t, customers_of_user, fresh_user).await, 1);
    assert_eq!(count(&t, customers_of_user, pre_user).await, 1);
    let created = count(
        &t,
        "SELECT count(*) AS n FROM outbox_events WHERE name = 'customer.created' AND aggregate_id = $1",
        id_of(&fresh),
    )
    .await;
    assert_eq!(created, 1);
    t.stop().await;
}
