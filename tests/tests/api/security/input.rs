//! Bounded input (docs/identity.md): absurd dates, huge arrays and overflowing numbers are 400s that
//! name the field, never a 500, a panic or a dropped connection.

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{call, login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::commerce_support;
use crate::crm_support::{admin_id, days_from_today, expect, get, id_of, new_customer, post, put, today, BASE};

/// Years outside 1900..=2200, as a client might write them.
const BAD_YEARS: [&str; 5] = ["-9999", "0000", "1899", "2201", "99999"];

fn day_in(year: &str) -> String {
    format!("{year}-01-05")
}

fn instant_in(year: &str) -> String {
    format!("{year}-01-05T10:00:00Z")
}

/// Sends `request`; asserts 400 `VALIDATION_ERROR` whose `details` name `field`.
async fn refused<S, B>(app: &S, field: &str, request: TestRequest, what: &str)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (status, _, body) = call(app, request).await;
    assert_eq!(status.as_u16(), 400, "{what}: {body}");
    assert_eq!(body["error"]["code"], "VALIDATION_ERROR", "{what}: {body}");
    assert!(body["error"]["details"][field].is_string(), "{what}: details must name {field}: {body}");
}

/// Sends `request`; asserts a 400 (any code; overflow in the warehouse is `INVALID_QUANTITY`).
async fn bad_request<S, B>(app: &S, request: TestRequest, what: &str) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (status, _, body) = call(app, request).await;
    assert_eq!(status.as_u16(), 400, "{what}: {body}");
    assert_eq!(body["status"], "error", "{what}: {body}");
    body["error"].clone()
}

/// Sends `request`; asserts `status` and returns the body.
async fn answered<S, B>(app: &S, status: u16, request: TestRequest, what: &str) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (actual, _, body) = call(app, request).await;
    assert_eq!(actual.as_u16(), status, "{what}: {body}");
    body
}

#[actix_web::test]
async fn absurd_dates_in_queries_are_400s_naming_the_parameter() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let series = format!("{BASE}/analytics/revenue/time-series");
    let orders = "/api/v1/order-mgmt/orders";
    let movements = "/api/v1/warehouse/stock-movements";
    let follow_ups = format!("{BASE}/interactions/follow-ups");
    let events = "/api/v1/events";

    // The example: date arithmetic on year -9999 used to panic.
    let uri = format!("{series}?granularity=day&end_date=-9999-01-05");
    refused(&app, "end_date", get(&uri, &admin), &uri).await;

    for year in BAD_YEARS {
        let (day, instant) = (day_in(year), instant_in(year));
        let mut cases: Vec<(String, &str)> = Vec::new();
        for granularity in ["day", "week", "month"] {
            cases.push((format!("{series}?granularity={granularity}&end_date={day}"), "end_date"));
            cases.push((format!("{series}?granularity={granularity}&start_date={day}"), "start_date"));
            cases.push((
                format!("{series}?granularity={granularity}&start_date={day}&end_date=2026-01-05"),
                "start_date",
            ));
        }
        cases.extend([
            (format!("{orders}?date_from={day}"), "date_from"),
            (format!("{orders}?date_to={day}"), "date_to"),
            (format!("{movements}?date_from={day}"), "date_from"),
            (format!("{movements}?date_to={day}"), "date_to"),
            (format!("{follow_ups}?due_before={instant}"), "due_before"),
            (format!("{events}?since={instant}"), "since"),
        ]);
        for (uri, field) in cases {
            refused(&app, field, get(&uri, &admin), &uri).await;
        }
    }

    // A valid 2026 date, and the bounds themselves, are accepted.
    let accepted = [
        format!("{series}?granularity=day&start_date=2026-01-01&end_date=2026-01-31"),
        format!("{series}?granularity=week&end_date=2026-06-30"),
        format!("{series}?granularity=month&start_date=1900-01-01&end_date=1900-12-31"),
        format!("{series}?granularity=day&end_date=1900-01-01"),
        format!("{series}?granularity=week&end_date=2200-12-31"),
        format!("{series}?granularity=month&end_date=2200-12-31"),
        format!("{orders}?date_from=2026-01-01&date_to=2026-12-31"),
        format!("{orders}?date_from=1900-01-01&date_to=2200-12-31"),
        format!("{movements}?date_from=2026-01-01&date_to=2026-12-31"),
        format!("{movements}?date_from=1900-01-01&date_to=2200-12-31"),
        format!("{follow_ups}?due_before=2026-03-01T10:00:00Z"),
        format!("{follow_ups}?due_before=2200-12-31T23:59:59Z"),
        format!("{events}?since=2026-03-01T10:00:00Z"),
        format!("{events}?since=1900-01-01T00:00:00Z"),
    ];
    for uri in accepted {
        answered(&app, 200, get(&uri, &admin), &uri).await;
    }
    let months = answered(&app, 200, get(&format!("{series}?granularity=month&end_date=2200-12-31"), &admin), "").await;
    assert_eq!(months["data"].as_array().map(Vec::len), Some(12), "{months}");
    assert_eq!(months["data"][11]["period"], "2200-12", "{months}");
    // The whole accepted span is still more than 1000 buckets.
    let uri = format!("{series}?granularity=month&start_date=1900-01-01&end_date=2200-12-31");
    refused(&app, "granularity", get(&uri, &admin), &uri).await;
    t.stop().await;
}

#[actix_web::test]
async fn absurd_dates_in_bodies_are_400s_naming_the_field() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rep = admin_id(&t).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Dora", "email": "dora@example.com"})).await);
    let deal_body = |close: &str| json!({"customer_id": customer, "assigned_to": rep, "name": "Plan", "value": 1000, "expected_close_date": close});
    let new_deal = || post(&format!("{BASE}/deals"), &admin, deal_body(&days_from_today(30)));
    let interaction_body = |started: &str| json!({"customer_id": customer, "type": "call", "direction": "outbound", "subject": "Hi", "started_at": started});
    let deal = id_of(&expect(&app, 201, new_deal()).await);
    let (won, lost) = (id_of(&expect(&app, 201, new_deal()).await), id_of(&expect(&app, 201, new_deal()).await));
    let interaction = id_of(
        &expect(&app, 201, post(&format!("{BASE}/interactions"), &admin, interaction_body("2026-03-01T10:00:00Z")))
            .await,
    );

    for year in BAD_YEARS {
        let (day, instant) = (day_in(year), instant_in(year));
        let cases = [
            ("expected_close_date", post(&format!("{BASE}/deals"), &admin, deal_body(&day))),
            (
                "expected_close_date",
                put(&format!("{BASE}/deals/{deal}/basic-info"), &admin, json!({"expected_close_date": day})),
            ),
            ("close_date", post(&format!("{BASE}/deals/{deal}/win"), &admin, json!({"close_date": day}))),
            (
                "close_date",
                post(&format!("{BASE}/deals/{deal}/lose"), &admin, json!({"close_date": day, "reason": "x"})),
            ),
            ("started_at", post(&format!("{BASE}/interactions"), &admin, interaction_body(&instant))),
            ("ended_at", put(&format!("{BASE}/interactions/{interaction}/end"), &admin, json!({"ended_at": instant}))),
            (
                "follow_up_date",
                put(
                    &format!("{BASE}/interactions/{interaction}/follow-up"),
                    &admin,
                    json!({"follow_up_required": true, "follow_up_date": instant}),
                ),
            ),
        ];
        for (field, request) in cases {
            refused(&app, field, request, &format!("{field} in year {year}")).await;
        }
    }
    // Nothing was changed by the refused requests.
    let still = expect(&app, 200, get(&format!("{BASE}/deals/{deal}"), &admin)).await;
    assert_eq!(
        (still["stage"].as_str(), still["expected_close_date"].as_str()),
        (Some("lead"), Some(days_from_today(30).as_str()))
    );

    // The bounds are accepted where the field allows them.
    let far = expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal_body("2200-12-31"))).await;
    assert_eq!(far["expected_close_date"], "2200-12-31");
    let edited = expect(
        &app,
        200,
        put(&format!("{BASE}/deals/{deal}/basic-info"), &admin, json!({"expected_close_date": "2200-12-31"})),
    )
    .await;
    assert_eq!(edited["expected_close_date"], "2200-12-31", "{edited}");
    expect(&app, 200, post(&format!("{BASE}/deals/{won}/win"), &admin, json!({"close_date": "2200-12-31"}))).await;
    expect(&app, 200, post(&format!("{BASE}/deals/{lost}/lose"), &admin, json!({"close_date": "1900-01-01"}))).await;
    let early =
        expect(&app, 201, post(&format!("{BASE}/interactions"), &admin, interaction_body("1900-01-01T00:00:00Z")))
            .await;
    let early = id_of(&early);
    let follow = json!({"follow_up_required": true, "follow_up_date": "1900-01-01T00:00:00Z"});
    expect(&app, 200, put(&format!("{BASE}/interactions/{early}/follow-up"), &admin, follow)).await;
    let ended = expect(
        &app,
        200,
        put(&format!("{BASE}/interactions/{early}/end"), &admin, json!({"ended_at": "2200-12-31T23:59:59Z"})),
    )
    .await;
    assert!(ended["duration_sec"].as_i64().is_some_and(|d| d > 9_000_000_000), "{ended}");
    // Analytics over those extreme (but accepted) dates still answer.
    for path in ["deals/pipeline", "sales-reps/performance", "interactions/insights", "customers/segmentation"] {
        expect(&app, 200, get(&format!("{BASE}/analytics/{path}"), &admin)).await;
    }
    let uri = format!("{BASE}/analytics/revenue/time-series?granularity=day&start_date=2200-12-01&end_date=2200-12-31");
    let series = expect(&app, 200, get(&uri, &admin)).await;
    assert_eq!(series[30]["revenue"]["cents"], 1000, "{series}");
    t.stop().await;
}

#[actix_web::test]
async fn huge_arrays_are_refused_and_duplicates_collapse() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let me = admin_id(&t).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Ava", "email": "ava@example.com"})).await);
    let interaction = |attendees: Value| {
        let body = json!({"customer_id": customer, "type": "meeting", "direction": "inbound", "subject": "Big meeting",
                          "started_at": "2026-03-01T10:00:00Z", "attendees": attendees});
        post(&format!("{BASE}/interactions"), &admin, body)
    };

    // attendees ≤ 100, counted as sent; duplicates are dropped.
    let hundred = expect(&app, 201, interaction(json!(vec![me; 100]))).await;
    assert_eq!(hundred["attendees"], json!([me]));
    refused(&app, "attendees", interaction(json!(vec![me; 101])), "101 attendees").await;
    let distinct: Vec<Uuid> = (0..101).map(|_| Uuid::now_v7()).collect();
    refused(&app, "attendees", interaction(json!(distinct)), "101 distinct attendees").await;
    let many: Vec<Uuid> = (0..20_000).map(|_| me).collect();
    refused(&app, "attendees", interaction(json!(many)), "20 000 attendees").await;

    // permission_ids ≤ 200 on POST /identity/roles/{id}/permissions.
    let role = answered(
        &app,
        201,
        post("/api/v1/identity/roles", &admin, json!({"name": "bulk", "display_name": "Bulk"})),
        "create role",
    )
    .await;
    let role_id = role["data"]["id"].as_str().expect("role id").to_owned();
    let permission =
        answered(&app, 200, get("/api/v1/identity/permissions/name/events:read", &admin), "permission").await;
    let permission_id = permission["data"]["id"].as_str().expect("permission id").to_owned();
    let grant = |ids: Value| {
        post(&format!("/api/v1/identity/roles/{role_id}/permissions"), &admin, json!({"permission_ids": ids}))
    };
    let granted = answered(&app, 200, grant(json!(vec![permission_id.clone(); 200])), "200 duplicates").await;
    assert_eq!(granted["data"]["granted"], 1, "{granted}");
    refused(&app, "permission_ids", grant(json!(vec![permission_id.clone(); 201])), "201 permission ids").await;
    let unknown: Vec<Uuid> = (0..201).map(|_| Uuid::now_v7()).collect();
    refused(&app, "permission_ids", grant(json!(unknown)), "201 unknown ids").await;
    refused(&app, "permission_ids", grant(json!([])), "no ids").await;
    let unknown: Vec<Uuid> = (0..200).map(|_| Uuid::now_v7()).collect();
    answered(&app, 404, grant(json!(unknown)), "200 unknown ids are looked up").await;

    // tags ≤ 50 (after trimming and removing duplicates).
    let tags = |n: usize| (0..n).map(|i| format!("tag-{i}")).collect::<Vec<_>>();
    let customer_with = |email: &str, tags: Vec<String>| {
        post(&format!("{BASE}/customers"), &admin, json!({"name": "Tagged", "email": email, "tags": tags}))
    };
    let fifty = expect(&app, 201, customer_with("fifty@example.com", tags(50))).await;
    assert_eq!(fifty["tags"].as_array().map(Vec::len), Some(50));
    refused(&app, "tags", customer_with("fifty-one@example.com", tags(51)), "51 tags").await;
    refused(&app, "tags", customer_with("many@example.com", tags(50_000)), "50 000 tags").await;
    let repeated: Vec<String> = (0..500).map(|i| format!("tag-{}", i % 50)).collect();
    let deduplicated = expect(&app, 201, customer_with("repeated@example.com", repeated)).await;
    assert_eq!(deduplicated["tags"].as_array().map(Vec::len), Some(50));
    t.stop().await;
}

#[actix_web::test]
async fn overflowing_numbers_are_400s_not_500s() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let max = i64::MAX;
    let over = json!(9_223_372_036_854_775_808_u64);

    // Orders: tax, discount, quantities and prices.
    let buyer = commerce_support::customer(&t.state.pool).await;
    let product = commerce_support::product(&app, &admin, "OVF-1").await;
    let product_id = product["id"].as_str().expect("product id").to_owned();
    let orders = "/api/v1/order-mgmt/orders";
    let order_with = |extra: Value| {
        let mut body = json!({"customer_id": buyer, "currency": "USD"});
        if let (Some(target), Some(fields)) = (body.as_object_mut(), extra.as_object()) {
            target.extend(fields.clone());
        }
        post(orders, &admin, body)
    };
    for (field, value) in [("tax", over.clone()), ("discount", over.clone()), ("tax", json!(1e30)), ("tax", json!(-1))]
    {
        let extra = Value::Object([(field.to_owned(), value.clone())].into_iter().collect());
        refused(&app, field, order_with(extra), &format!("{field} {value}")).await;
    }
    let taxed = expect(&app, 201, order_with(json!({"tax": max}))).await;
    let discounted = expect(&app, 201, order_with(json!({"discount": max}))).await;
    assert_eq!((taxed["total"].as_i64(), discounted["total"].as_i64()), (Some(max), Some(0)));
    let line = |order: &Value, quantity: Value, unit_price: Value| {
        let id = order["id"].as_str().expect("order id");
        let body = json!({"product_id": product_id, "quantity": quantity, "unit_price": unit_price, "currency": "USD"});
        post(&format!("{orders}/{id}/lines"), &admin, body)
    };
    let error = bad_request(&app, line(&taxed, json!(1), json!(1)), "tax + subtotal").await;
    assert_eq!(error["code"], "VALIDATION_ERROR", "{error}");
    let order = expect(&app, 201, order_with(json!({}))).await;
    for (quantity, unit_price) in [
        (json!(max), json!(2)),
        (json!(i32::MAX), json!(max)),
        (json!(max), json!(max)),
        (over.clone(), json!(1)),
        (json!(1), over.clone()),
        (json!(-1), json!(1)),
        (json!(1), json!(-1)),
    ] {
        bad_request(
            &app,
            line(&order, quantity.clone(), unit_price.clone()),
            &format!("line {quantity} × {unit_price}"),
        )
        .await;
    }
    let order = expect(&app, 201, line(&order, json!(1), json!(max))).await;
    assert_eq!(order["subtotal"].as_i64(), Some(max));
    bad_request(&app, line(&order, json!(1), json!(1)), "second line over i64").await;
    let (order_id, line_id) = (order["id"].as_str().expect("id"), order["lines"][0]["id"].as_str().expect("line"));
    let change =
        |quantity: Value| put(&format!("{orders}/{order_id}/lines/{line_id}"), &admin, json!({"quantity": quantity}));
    for quantity in [json!(2), json!(i32::MAX), json!(max), over.clone()] {
        bad_request(&app, change(quantity.clone()), &format!("line quantity {quantity}")).await;
    }
    let unchanged = expect(&app, 200, get(&format!("{orders}/{order_id}"), &admin)).await;
    assert_eq!((unchanged["subtotal"].as_i64(), unchanged["lines"][0]["quantity"].as_i64()), (Some(max), Some(1)));

    // Warehouse: receive, adjust, movements, unit cost.
    let location = commerce_support::location(&app, &admin, "OVF-A").await;
    let record = commerce_support::stock(&app, &admin, &product, &location, 10).await;
    let inventory = format!("/api/v1/warehouse/inventory/{}", record["id"].as_str().expect("inventory id"));
    let op = |name: &str, body: Value| post(&format!("{inventory}/{name}"), &admin, body);
    for (name, body) in [
        ("receive", json!({"quantity": max})),
        ("receive", json!({"quantity": over})),
        ("receive", json!({"quantity": 2, "unit_cost": max, "currency": "USD"})),
        ("adjust", json!({"quantity_delta": max, "reason": "count"})),
        ("adjust", json!({"quantity_delta": i64::MIN, "reason": "count"})),
        ("adjust", json!({"quantity_delta": over, "reason": "count"})),
        ("damage", json!({"quantity": over, "reason": "broken"})),
        ("return", json!({"quantity": max})),
        ("reserve", json!({"quantity": -1, "order_id": Uuid::now_v7()})),
    ] {
        bad_request(&app, op(name, body.clone()), &format!("{name} {body}")).await;
    }
    // More than is there is a conflict, not an overflow; either way never a 5xx.
    for (name, body) in [
        ("reserve", json!({"quantity": max, "order_id": Uuid::now_v7()})),
        ("damage", json!({"quantity": i32::MAX, "reason": "broken"})),
        ("adjust", json!({"quantity_delta": -max, "reason": "count"})),
    ] {
        let (status, _, body) = call(&app, op(name, body.clone())).await;
        assert!(status.is_client_error(), "{name}: {status} {body}");
    }
    let movement = |body: Value| post("/api/v1/warehouse/stock-movements", &admin, body);
    let id = record["id"].clone();
    for body in [
        json!({"inventory_id": id, "type": "Receipt", "quantity": max}),
        json!({"inventory_id": id, "type": "Receipt", "quantity": 3, "unit_cost": max, "currency": "USD"}),
        json!({"inventory_id": id, "type": "Adjustment", "quantity_delta": i64::MIN, "reason": "count"}),
        json!({"inventory_id": id, "type": "Return", "quantity": max}),
    ] {
        bad_request(&app, movement(body.clone()), &format!("movement {body}")).await;
    }
    let still = expect(&app, 200, get(&inventory, &admin)).await;
    assert_eq!(still["quantity_on_hand"].as_i64(), Some(10), "{still}");

    // Sums of huge stored quantities answer (saturated), they do not fail.
    let big = commerce_support::product(&app, &admin, "OVF-2").await;
    let other = commerce_support::product(&app, &admin, "OVF-3").await;
    let second = commerce_support::location(&app, &admin, "OVF-B").await;
    commerce_support::stock(&app, &admin, &big, &location, max).await;
    commerce_support::stock(&app, &admin, &big, &second, max).await;
    commerce_support::stock(&app, &admin, &other, &location, max).await;
    let big_id = big["id"].as_str().expect("id");
    let availability =
        expect(&app, 200, get(&format!("/api/v1/warehouse/products/{big_id}/availability"), &admin)).await;
    assert_eq!(availability["quantity_on_hand"].as_i64(), Some(max), "{availability}");
    let location_id = location["id"].as_str().expect("id");
    expect(&app, 200, get(&format!("/api/v1/warehouse/locations/{location_id}/utilization"), &admin)).await;

    // Deals: a value beyond i64 is refused; sums of huge won deals saturate in every figure.
    let rep = admin_id(&t).await;
    let customer = id_of(&new_customer(&app, &admin, json!({"name": "Rich", "email": "rich@example.com"})).await);
    let deal_body = |value: Value| {
        json!({"customer_id": customer, "assigned_to": rep, "name": "Huge", "value": value,
               "expected_close_date": days_from_today(30)})
    };
    refused(&app, "value", post(&format!("{BASE}/deals"), &admin, deal_body(over.clone())), "deal value").await;
    for _ in 0..2 {
        let deal = id_of(&expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal_body(json!(max)))).await);
        expect(&app, 200, post(&format!("{BASE}/deals/{deal}/win"), &admin, json!({"close_date": today()}))).await;
    }
    let update = expect(&app, 201, post(&format!("{BASE}/deals"), &admin, deal_body(json!(1)))).await;
    refused(
        &app,
        "value",
        put(&format!("{BASE}/deals/{}/value", id_of(&update)), &admin, json!({"value": over, "currency": "USD"})),
        "value update",
    )
    .await;
    let pipeline = expect(&app, 200, get(&format!("{BASE}/analytics/deals/pipeline"), &admin)).await;
    assert_eq!(pipeline["total_value"]["cents"].as_i64(), Some(max), "{pipeline}");
    assert_eq!(pipeline["by_stage"]["closed_won"]["value"]["cents"].as_i64(), Some(max), "{pipeline}");
    for path in [
        "customers/overview",
        "customers/segmentation",
        "sales-reps/performance",
        "deals/conversions",
        "revenue/time-series?granularity=day",
        "revenue/time-series?granularity=month",
    ] {
        expect(&app, 200, get(&format!("{BASE}/analytics/{path}"), &admin)).await;
    }
    let won = expect(&app, 200, get(&format!("{BASE}/deals/stats/won"), &admin)).await;
    assert_eq!(won["total_value"].as_i64(), Some(max), "{won}");
    t.stop().await;
}
