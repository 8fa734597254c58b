//! Streaming exports through the HTTP API (docs/imports-and-exports.md, "Exports"): files in both
//! formats, the list filters, formula cells neutralised, and export then upsert import unchanged.
//! Each export against its list's pages: `filters`.

mod filters;

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{login, register, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use crate::crm_support::{expect, get, post, reject, BASE};
use crate::imports::{finished, queue, upload};

const EXPORTS: &str = "/api/v1/exports";

/// The answer's status, `Content-Type`, `Content-Disposition` and body as text.
async fn download<S, B>(app: &S, request: TestRequest) -> (u16, String, String, String)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let response = app.call(request.to_request()).await.unwrap_or_else(|_| panic!("the export answers"));
    let status = response.status().as_u16();
    let header = |name: &str| response.headers().get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned();
    let (content_type, disposition) = (header("content-type"), header("content-disposition"));
    let bytes = actix_web::body::to_bytes(response.into_body()).await.unwrap_or_else(|_| panic!("the body streams"));
    (status, content_type, disposition, String::from_utf8(bytes.to_vec()).expect("UTF-8"))
}

/// Waits for the customer the admin's registration makes (an event handler's work), so that the
/// counts below do not change under the test.
async fn admins_customer<S, B>(app: &S, token: &str)
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let uri = format!("{BASE}/customers/email/{ADMIN_EMAIL}");
    crate::crm_support::wait_for("the admin's customer", || async {
        tally_tests::call(app, get(&uri, token)).await.0.as_u16() == 200
    })
    .await;
}

/// How many records a list holds.
async fn total<S, B>(app: &S, token: &str, list: &str) -> u64
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (status, _, body) = tally_tests::call(app, get(&format!("{list}?page_size=1"), token)).await;
    assert_eq!(status.as_u16(), 200, "{body}");
    body["pagination"]["total"].as_u64().expect("a total")
}

#[actix_web::test]
async fn customers_export_as_csv_and_jsonl_with_the_lists_filters() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    admins_customer(&app, &admin).await;
    let body = json!({"name": "=SUM(A1)", "email": "f@example.com", "phone": "+380441234567", "tags": ["a;b", "vip"]});
    let formula = expect(&app, 201, post(&format!("{BASE}/customers"), &admin, body)).await;
    expect(
        &app,
        201,
        post(&format!("{BASE}/customers"), &admin, json!({"name": "Pro", "email": "p@example.com", "tier": "pro"})),
    )
    .await;

    let (status, content_type, disposition, csv) = download(&app, get(&format!("{EXPORTS}/customers"), &admin)).await;
    assert_eq!(status, 200, "{csv}");
    assert!(content_type.starts_with("text/csv"), "{content_type}");
    let today = time::OffsetDateTime::now_utc().date();
    assert_eq!(disposition, format!("attachment; filename=\"customers-{today}.csv\""));
    let lines: Vec<&str> = csv.split("\r\n").filter(|l| !l.is_empty()).collect();
    assert_eq!(
        lines[0],
        "id,user_id,company_id,type,name,email,phone,status,tier,source,assigned_to,tags,created_at,updated_at,churned_at"
    );
    assert_eq!(lines.len() as u64, 1 + total(&app, &admin, &format!("{BASE}/customers")).await, "{csv}");
    let row = lines.iter().find(|l| l.contains("f@example.com")).expect("the row");
    assert!(row.contains(",individual,'=SUM(A1),f@example.com,'+380441234567,lead,free,,,a\\;b;vip,"), "{row}");

    let (status, content_type, _, jsonl) =
        download(&app, get(&format!("{EXPORTS}/customers?format=jsonl&tier=pro"), &admin)).await;
    assert_eq!((status, content_type.as_str()), (200, "application/x-ndjson"));
    let records: Vec<Value> = jsonl.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
    assert_eq!(records.len(), 1, "{jsonl}");
    assert_eq!(records[0]["email"], "p@example.com");
    // A JSONL record is the view the API shows.
    let (_, _, _, all) =
        download(&app, get(&format!("{EXPORTS}/customers?format=jsonl&search=f%40example"), &admin)).await;
    let exported: Value = serde_json::from_str(all.trim()).expect("one line");
    assert_eq!(exported, formula);

    reject(&app, 400, "VALIDATION_ERROR", get(&format!("{EXPORTS}/customers?status=nope"), &admin)).await;
    reject(&app, 400, "VALIDATION_ERROR", get(&format!("{EXPORTS}/customers?format=xlsx"), &admin)).await;
    reject(&app, 400, "VALIDATION_ERROR", get(&format!("{EXPORTS}/deals?stage=won"), &admin)).await;
    let (_, nobody) = register(&app, "nobody@example.com", "password-1").await;
    reject(&app, 403, "FORBIDDEN", get(&format!("{EXPORTS}/customers"), &nobody)).await;
    t.stop().await;
}

#[actix_web::test]
async fn every_resource_exports_in_both_formats() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    for resource in
        ["customers", "companies", "deals", "interactions", "orders", "products", "inventory", "stock-movements"]
    {
        for format in ["csv", "jsonl"] {
            let (status, _, disposition, body) =
                download(&app, get(&format!("{EXPORTS}/{resource}?format={format}"), &admin)).await;
            assert_eq!(status, 200, "{resource} {format}: {body}");
            assert!(disposition.ends_with(&format!(".{format}\"")), "{disposition}");
            if format == "csv" {
                assert!(body.starts_with("id,"), "{resource}: {body}");
            }
        }
    }
    t.stop().await;
}

#[actix_web::test]
async fn an_export_imported_again_with_upsert_leaves_every_row_unchanged() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    admins_customer(&app, &admin).await;
    let company = expect(
        &app,
        201,
        post(&format!("{BASE}/companies"), &admin, json!({"name": "+Acme", "website": "https://acme.example"})),
    )
    .await;
    for body in [
        json!({"name": "-Ann", "email": "ann@example.com", "phone": "+380441234567", "tags": ["x;y", "@home"], "source": "fair"}),
        json!({"name": "Bob", "email": "bob@example.com", "company_id": company["id"], "status": "prospect", "tier": "pro"}),
    ] {
        expect(&app, 201, post(&format!("{BASE}/customers"), &admin, body)).await;
    }
    let product = json!({"sku": "=SKU-1", "name": "Bolt", "description": "a, \"quoted\" line", "price": 1250, "currency": "USD", "weight_grams": 0});
    expect(&app, 201, post("/api/v1/warehouse/products", &admin, product)).await;
    for (resource, list) in [
        ("customers", format!("{BASE}/customers")),
        ("companies", format!("{BASE}/companies")),
        ("products", "/api/v1/warehouse/products".to_owned()),
    ] {
        let count = total(&app, &admin, &list).await;
        for format in ["csv", "jsonl"] {
            let (_, _, _, file) = download(&app, get(&format!("{EXPORTS}/{resource}?format={format}"), &admin)).await;
            let content_type = if format == "csv" { "text/csv" } else { "application/x-ndjson" };
            let id = queue(&app, upload(&admin, resource, "mode=upsert", content_type, file)).await;
            let job = finished(&app, &admin, id).await;
            assert_eq!(job["status"], "succeeded", "{resource} {format}: {job}");
            assert_eq!(
                (job["total_rows"].as_u64(), job["unchanged"].as_u64(), job["failed_rows"].as_u64()),
                (Some(count), Some(count), Some(0)),
                "{resource} {format}: {job}"
            );
        }
    }
    t.stop().await;
}

/// Every JSONL record of every resource is its view as the API shows it: each exported field holds
/// what `GET /{id}` answers, with every column filled in at least once (instants, dates, lists of
/// text and of ids, small and large integers, booleans).
#[actix_web::test]
async fn exported_records_hold_what_the_api_shows() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    admins_customer(&app, &admin).await;
    let me = crate::crm_support::admin_id(&t).await;
    let company = expect(
        &app,
        201,
        post(
            &format!("{BASE}/companies"),
            &admin,
            json!({"name": "Acme", "website": "https://acme.example", "industry": "tools"}),
        ),
    )
    .await;
    let customer = expect(
        &app,
        201,
        post(
            &format!("{BASE}/customers"),
            &admin,
            json!({"name": "=Cora", "email": "cora@acme.test", "phone": "+380441234567", "company_id": company["id"],
               "tags": ["x;y", "vip"], "source": "fair", "assigned_to": me}),
        ),
    )
    .await;
    expect(
        &app,
        201,
        post(
            &format!("{BASE}/deals"),
            &admin,
            json!({"customer_id": customer["id"], "assigned_to": me, "name": "Plan", "value": 120_000,
               "expected_close_date": crate::crm_support::days_from_today(30), "tags": ["q3"]}),
        ),
    )
    .await;
    expect(
        &app,
        201,
        post(
            &format!("{BASE}/interactions"),
            &admin,
            json!({"customer_id": customer["id"], "type": "call", "direction": "outbound", "subject": "Hello",
               "started_at": "2026-01-02T03:04:05.5Z", "attendees": [me], "follow_up_required": true,
               "follow_up_date": "2026-02-03T04:05:06Z", "follow_up_notes": "call back"}),
        ),
    )
    .await;
    let product = expect(
        &app,
        201,
        post(
            "/api/v1/warehouse/products",
            &admin,
            json!({"sku": "B-1", "name": "Bolt", "description": "a bolt", "category": "parts", "brand": "Acme",
               "price": 1250, "currency": "USD", "weight_grams": 12, "length_mm": 1, "width_mm": 2, "height_mm": 3}),
        ),
    )
    .await;
    let location = expect(
        &app,
        201,
        post(
            "/api/v1/warehouse/locations",
            &admin,
            json!({"code": "WH-1", "name": "Main", "type": "Warehouse", "country": "US"}),
        ),
    )
    .await;
    expect(
        &app,
        201,
        post(
            "/api/v1/warehouse/inventory",
            &admin,
            json!({"product_id": product["id"], "location_id": location["id"], "quantity_on_hand": 7,
               "reorder_point": 2, "min_stock": 1, "max_stock": 50}),
        ),
    )
    .await;
    for (resource, view) in [
        ("customers", format!("{BASE}/customers")),
        ("companies", format!("{BASE}/companies")),
        ("deals", format!("{BASE}/deals")),
        ("interactions", format!("{BASE}/interactions")),
        ("products", "/api/v1/warehouse/products".to_owned()),
        ("inventory", "/api/v1/warehouse/inventory".to_owned()),
        ("stock-movements", "/api/v1/warehouse/stock-movements".to_owned()),
    ] {
        let (status, _, _, body) = download(&app, get(&format!("{EXPORTS}/{resource}?format=jsonl"), &admin)).await;
        assert_eq!(status, 200, "{resource}: {body}");
        let records: Vec<Value> = body.lines().map(|l| serde_json::from_str(l).expect("a JSON line")).collect();
        assert!(!records.is_empty(), "{resource} exported nothing");
        let mut compared = 0;
        for record in &records {
            let shown =
                expect(&app, 200, get(&format!("{view}/{}", record["id"].as_str().expect("an id")), &admin)).await;
            for (field, value) in record.as_object().expect("an object") {
                if let Some(expected) = shown.get(field) {
                    assert_eq!(value, expected, "{resource}.{field}");
                    compared += 1;
                }
            }
        }
        assert!(compared >= records.len() * 5, "{resource}: only {compared} fields compared");
    }
    t.stop().await;
}
