//! Bulk imports through the HTTP API (docs/imports-and-exports.md): uploads refused or queued,
//! jobs run by the runner through the single endpoints' use cases, their errors, dry runs, atomic
//! jobs, upserts, cancel, permissions, events, a job resumed after its instance died, and two jobs
//! on the same keys at once.

use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::test::{init_service, TestRequest};
use api::build_app;
use diesel_async::RunQueryDsl;
use serde_json::Value;
use tally_tests::{bearer, call, login, register, register_staff, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};
use uuid::Uuid;

use crate::crm_support::{code, event_names, expect, get, post, reject, BASE};

pub const IMPORTS: &str = "/api/v1/imports";
const CSV: &str = "text/csv";
const JSONL: &str = "application/x-ndjson";

/// An upload of `body` as `content_type` to `/imports/{resource}?{query}`.
pub fn upload(token: &str, resource: &str, query: &str, content_type: &str, body: impl Into<Vec<u8>>) -> TestRequest {
    TestRequest::post()
        .uri(&format!("{IMPORTS}/{resource}?{query}"))
        .insert_header(bearer(token))
        .insert_header(("Content-Type", content_type))
        .set_payload(body.into())
}

/// Uploads and answers the job id (asserting 202 and its `Location`).
pub async fn queue<S, B>(app: &S, request: TestRequest) -> Uuid
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (status, headers, body) = call(app, request).await;
    assert_eq!(status.as_u16(), 202, "{body}");
    let id = Uuid::parse_str(body["data"]["id"].as_str().expect("job id")).expect("uuid");
    assert_eq!(headers.get("location").and_then(|v| v.to_str().ok()), Some(format!("{IMPORTS}/{id}").as_str()));
    assert_eq!(body["data"]["status"], "queued", "{body}");
    id
}

/// Polls the job until it has finished; answers it.
pub async fn finished<S, B>(app: &S, token: &str, id: Uuid) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let job = expect(app, 200, get(&format!("{IMPORTS}/{id}"), token)).await;
        if ["succeeded", "failed", "cancelled"].contains(&job["status"].as_str().unwrap_or_default()) {
            return job;
        }
        assert!(Instant::now() < deadline, "the job did not finish: {job}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `(total_rows, processed_rows, created, updated, unchanged, failed_rows)`.
fn counts(job: &Value) -> (u64, u64, u64, u64, u64, u64) {
    let n = |k: &str| job[k].as_u64().unwrap_or_else(|| panic!("{k} in {job}"));
    (n("total_rows"), n("processed_rows"), n("created"), n("updated"), n("unchanged"), n("failed_rows"))
}

async fn errors<S, B>(app: &S, token: &str, id: Uuid) -> Vec<(u64, String, String)>
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let data = expect(app, 200, get(&format!("{IMPORTS}/{id}/errors?page_size=100"), token)).await;
    data.as_array()
        .expect("errors")
        .iter()
        .map(|e| {
            (
                e["row"].as_u64().expect("row"),
                e["field"].as_str().unwrap_or("").to_owned(),
                e["code"].as_str().expect("code").to_owned(),
            )
        })
        .collect()
}

async fn sql(t: &TestApp, statement: &str) {
    let mut conn = t.state.pool.get().await.expect("conn");
    diesel::sql_query(statement).execute(&mut conn).await.unwrap_or_else(|e| panic!("{statement}: {e}"));
}

async fn count_where(t: &TestApp, table_and_filter: &str) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = t.state.pool.get().await.expect("conn");
    let row: Count = diesel::sql_query(format!("SELECT count(*) AS n FROM {table_and_filter}"))
        .get_result(&mut conn)
        .await
        .expect("count");
    row.n
}

/// Without a runner of its own: jobs stay queued until the test starts one.
fn no_runner() -> TestOptions {
    TestOptions::default().with_env("IMPORT_RUNNER", "false")
}

#[actix_web::test]
async fn a_customer_file_lands_row_by_row_with_the_create_endpoints_rules_and_events() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let file = "name,email,phone,tags,status\n\
                Ann,ann@example.com,'+380441234567,vip;b2b,prospect\n\
                Bob,not-an-email,,,\n\
                Cy,cy@example.com\n\
                =1+1,formula@example.com,,,\n\
                Dup,ann@example.com,,,\n\
                ,noname@example.com,,,\n";
    let id = queue(&app, upload(&admin, "customers", "", CSV, file)).await;
    let job = finished(&app, &admin, id).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    assert_eq!(counts(&job), (6, 6, 2, 0, 0, 4), "{job}");
    assert_eq!(
        (job["resource"].as_str(), job["format"].as_str(), job["mode"].as_str()),
        (Some("customers"), Some("csv"), Some("create"))
    );
    let found = errors(&app, &admin, id).await;
    let rows: Vec<(u64, &str)> = found.iter().map(|(row, _, code)| (*row, code.as_str())).collect();
    assert_eq!(
        rows,
        vec![(2, "INVALID_EMAIL"), (3, "VALIDATION_ERROR"), (5, "ALREADY_EXISTS"), (6, "VALIDATION_ERROR")]
    );
    assert_eq!(found[0].1, "email");
    assert_eq!(found[3].1, "name");
    // The rows that landed are what the create endpoint makes of them, a formula kept as text.
    let ann = expect(&app, 200, get(&format!("{BASE}/customers/email/ann@example.com"), &admin)).await;
    assert_eq!((ann["phone"].as_str(), ann["status"].as_str()), (Some("+380441234567"), Some("prospect")));
    assert_eq!(ann["tags"], serde_json::json!(["vip", "b2b"]));
    let formula = expect(&app, 200, get(&format!("{BASE}/customers/email/formula@example.com"), &admin)).await;
    assert_eq!(formula["name"], "=1+1");
    let ann_id = Uuid::parse_str(ann["id"].as_str().expect("id")).expect("uuid");
    assert!(event_names(&app, &admin, ann_id).await.contains(&"customer.created".to_owned()));
    assert_eq!(event_names(&app, &admin, id).await, vec!["import.completed"]);
    // Paginated errors.
    let (status, _, page) = call(&app, get(&format!("{IMPORTS}/{id}/errors?page_size=3&page=2"), &admin)).await;
    assert_eq!(status.as_u16(), 200);
    assert_eq!(page["pagination"]["total"], 4);
    assert_eq!(page["data"][0]["row"], 6);
    // The job in the caller's list.
    let listed = expect(&app, 200, get(IMPORTS, &admin)).await;
    assert_eq!(listed[0]["id"], id.to_string());
    t.stop().await;
}

#[actix_web::test]
async fn jsonl_rows_are_lines_and_bad_lines_are_row_errors() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let file = "{\"name\": \"Acme\", \"website\": \"https://acme.example\"}\n\
                [1, 2]\n\
                \n\
                not json\n\
                {\"name\": \"Globex\", \"colour\": \"red\"}\n\
                {\"name\": \"Initech\"}";
    let id = queue(&app, upload(&admin, "companies", "", JSONL, file)).await;
    let job = finished(&app, &admin, id).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    assert_eq!(counts(&job), (5, 5, 2, 0, 0, 3), "{job}");
    let rows: Vec<u64> = errors(&app, &admin, id).await.into_iter().map(|(row, _, _)| row).collect();
    assert_eq!(rows, vec![2, 4, 5], "line numbers, blank lines counted");
    t.stop().await;
}

#[actix_web::test]
async fn bad_files_are_refused_at_upload_and_make_no_job() {
    let t = TestApp::start_with(TestOptions::default().with_env("IMPORT_MAX_BYTES", "200")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let error =
        reject(&app, 400, "VALIDATION_ERROR", upload(&admin, "customers", "", CSV, "name,colour\nAnn,red\n")).await;
    assert!(error["details"]["colour"].is_string(), "{error}");
    assert!(error["details"]["email"].is_string(), "{error}");
    for (body, what) in [
        (b"name,email\nAnn,\xff@example.com\n".to_vec(), "not UTF-8"),
        (b"name,email\n\"Ann,ann@example.com\n".to_vec(), "unclosed quote"),
        (Vec::new(), "empty"),
        (b"\n\n".to_vec(), "blank lines only"),
    ] {
        let error = reject(&app, 400, "VALIDATION_ERROR", upload(&admin, "customers", "", CSV, body)).await;
        assert!(error["message"].as_str().is_some_and(|m| !m.is_empty()), "{what}: {error}");
    }
    let error =
        reject(&app, 400, "VALIDATION_ERROR", upload(&admin, "customers", "", CSV, b"name,email\nAnn,\xff\n".to_vec()))
            .await;
    assert!(error["message"].as_str().is_some_and(|m| m.contains("row 1")), "{error}");
    reject(&app, 400, "VALIDATION_ERROR", upload(&admin, "customers", "", JSONL, "")).await;
    reject(&app, 415, "UNSUPPORTED_MEDIA_TYPE", upload(&admin, "customers", "", "application/json", "{}")).await;
    reject(&app, 400, "VALIDATION_ERROR", upload(&admin, "customers", "mode=merge", CSV, "name,email\n")).await;
    // Over the limit: decided from Content-Length, before the body.
    let big = format!("name,email\n{}", "Ann,ann@example.com\n".repeat(20));
    reject(&app, 413, "PAYLOAD_TOO_LARGE", upload(&admin, "customers", "", CSV, big)).await;
    assert_eq!(count_where(&t, "import_jobs").await, 0, "no job for a refused upload");
    // A header without rows is a job of nothing, which succeeds.
    let id = queue(&app, upload(&admin, "customers", "", CSV, "name,email\n")).await;
    assert_eq!(counts(&finished(&app, &admin, id).await), (0, 0, 0, 0, 0, 0));
    t.stop().await;
}

#[actix_web::test]
async fn a_dry_run_reports_what_a_real_run_does_and_writes_nothing() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let file = "name,email\nA,a@example.com\nB,bad\nC,c@example.com\nA again,a@example.com\n";
    let imported = "customers WHERE email LIKE '%@example.com'";
    let dry = queue(&app, upload(&admin, "customers", "dry_run=true", CSV, file)).await;
    let dry = finished(&app, &admin, dry).await;
    assert_eq!((dry["status"].as_str(), dry["dry_run"].as_bool()), (Some("succeeded"), Some(true)));
    assert_eq!(counts(&dry), (4, 4, 2, 0, 0, 2), "{dry}");
    assert_eq!(count_where(&t, imported).await, 0, "a dry run writes nothing");
    let real = queue(&app, upload(&admin, "customers", "", CSV, file)).await;
    let real_job = finished(&app, &admin, real).await;
    assert_eq!(counts(&real_job), counts(&dry));
    let dry_id = Uuid::parse_str(dry["id"].as_str().expect("id")).expect("uuid");
    assert_eq!(errors(&app, &admin, dry_id).await, errors(&app, &admin, real).await);
    assert_eq!(count_where(&t, imported).await, 2);
    t.stop().await;
}

#[actix_web::test]
async fn an_atomic_job_with_a_bad_row_lands_nothing_and_fails() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let companies = count_where(&t, "companies").await;
    let id =
        queue(&app, upload(&admin, "companies", "atomic=true", CSV, "name,website\nAcme,\nBad,ftp://x\nGlobex,\n"))
            .await;
    let job = finished(&app, &admin, id).await;
    assert_eq!(job["status"], "failed", "{job}");
    assert_eq!(counts(&job), (3, 3, 0, 0, 0, 1), "{job}");
    assert!(job["error"].as_str().is_some_and(|e| e.contains("atomic")), "{job}");
    assert_eq!(errors(&app, &admin, id).await, vec![(2, "website".to_owned(), "VALIDATION_ERROR".to_owned())]);
    assert_eq!(count_where(&t, "companies").await, companies);
    assert_eq!(event_names(&app, &admin, id).await, vec!["import.failed"]);
    let clean = queue(&app, upload(&admin, "companies", "atomic=true", CSV, "name\nAcme\nGlobex\n")).await;
    assert_eq!(finished(&app, &admin, clean).await["status"], "succeeded");
    assert_eq!(count_where(&t, "companies").await, companies + 2);
    t.stop().await;
}

#[actix_web::test]
async fn upserting_the_same_file_twice_leaves_every_row_unchanged() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let file = "name,email,phone,tags,tier\nAnn,ann@example.com,+380441234567,vip; b2b,free\nBob,bob@example.com,,,\n";
    let first = queue(&app, upload(&admin, "customers", "mode=upsert", CSV, file)).await;
    assert_eq!(counts(&finished(&app, &admin, first).await), (2, 2, 2, 0, 0, 0));
    let second = queue(&app, upload(&admin, "customers", "mode=upsert", CSV, file)).await;
    assert_eq!(counts(&finished(&app, &admin, second).await), (2, 2, 0, 0, 2, 0));
    let changed = "name,email,tags,tier\n Ann B ,ann@example.com,vip,pro\nBob,bob@example.com,,\n";
    let third = queue(&app, upload(&admin, "customers", "mode=upsert", CSV, changed)).await;
    assert_eq!(counts(&finished(&app, &admin, third).await), (2, 2, 0, 1, 1, 0));
    let ann = expect(&app, 200, get(&format!("{BASE}/customers/email/ann@example.com"), &admin)).await;
    assert_eq!((ann["name"].as_str(), ann["tier"].as_str()), (Some("Ann B"), Some("pro")));
    assert_eq!((ann["tags"].clone(), ann["phone"].as_str()), (serde_json::json!(["vip"]), Some("+380441234567")));
    // A move the tier's rules refuse is that endpoint's code.
    let down =
        queue(&app, upload(&admin, "customers", "mode=upsert", CSV, "name,email,tier\nAnn B,ann@example.com,free\n"))
            .await;
    let job = finished(&app, &admin, down).await;
    assert_eq!(counts(&job).5, 1, "{job}");
    assert_eq!(errors(&app, &admin, down).await[0].2, "INVALID_TIER_CHANGE");
    // Companies match by name in any case; two of a name are ambiguous.
    let companies = "name,industry\nAcme,Retail\n";
    let made = queue(&app, upload(&admin, "companies", "mode=upsert", CSV, companies)).await;
    assert_eq!(counts(&finished(&app, &admin, made).await).2, 1);
    let again = queue(&app, upload(&admin, "companies", "mode=upsert", CSV, companies)).await;
    assert_eq!(counts(&finished(&app, &admin, again).await).4, 1, "matched, unchanged");
    let renamed = queue(&app, upload(&admin, "companies", "mode=upsert", CSV, "name,industry\nACME,Retail\n")).await;
    assert_eq!(counts(&finished(&app, &admin, renamed).await).3, 1, "matched case-insensitively, renamed");
    expect(&app, 201, post(&format!("{BASE}/companies"), &admin, serde_json::json!({"name": "Acme"}))).await;
    let ambiguous = queue(&app, upload(&admin, "companies", "mode=upsert", CSV, companies)).await;
    finished(&app, &admin, ambiguous).await;
    assert_eq!(errors(&app, &admin, ambiguous).await, vec![(1, "name".to_owned(), "AMBIGUOUS_MATCH".to_owned())]);
    t.stop().await;
}

#[actix_web::test]
async fn jobs_are_their_callers_and_need_the_resources_permissions() {
    let t = TestApp::start_with(no_runner()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let (_, staff) = register_staff(&app, "staff@example.com", "password-1").await;
    let (_, other) = register_staff(&app, "other@example.com", "password-1").await;
    let (_, nobody) = register(&app, "nobody@example.com", "password-1").await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let id = queue(&app, upload(&staff, "customers", "", CSV, "name,email\nA,a@example.com\n")).await;
    expect(&app, 200, get(&format!("{IMPORTS}/{id}"), &staff)).await;
    for uri in [format!("{IMPORTS}/{id}"), format!("{IMPORTS}/{id}/errors")] {
        reject(&app, 404, "NOT_FOUND", get(&uri, &other)).await;
    }
    reject(
        &app,
        404,
        "NOT_FOUND",
        TestRequest::post().uri(&format!("{IMPORTS}/{id}/cancel")).insert_header(bearer(&other)),
    )
    .await;
    assert_eq!(expect(&app, 200, get(IMPORTS, &other)).await.as_array().map(Vec::len), Some(0));
    expect(&app, 200, get(&format!("{IMPORTS}/{id}"), &admin)).await;
    // Staff read products only: no product import; a caller without imports:create at all.
    reject(&app, 403, "FORBIDDEN", upload(&staff, "products", "", CSV, "sku,name\nA,B\n")).await;
    reject(&app, 403, "FORBIDDEN", upload(&nobody, "customers", "", CSV, "name,email\n")).await;
    // Cancel: the queued job is cancelled once; a finished one refuses.
    let cancelled =
        expect(&app, 200, TestRequest::post().uri(&format!("{IMPORTS}/{id}/cancel")).insert_header(bearer(&staff)))
            .await;
    assert_eq!(cancelled["status"], "cancelled");
    let (status, _, body) =
        call(&app, TestRequest::post().uri(&format!("{IMPORTS}/{id}/cancel")).insert_header(bearer(&staff))).await;
    assert_eq!((status.as_u16(), code(&body)), (409, "INVALID_STATUS_TRANSITION"), "{body}");
    t.stop().await;
}

#[actix_web::test]
async fn a_job_whose_instance_died_is_resumed_after_its_last_committed_batch() {
    let t = TestApp::start_with(no_runner()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let rows: String = (1..=2500).map(|i| format!("C{i},c{i}@example.com\n")).collect();
    let id = queue(&app, upload(&admin, "customers", "", CSV, format!("name,email\n{rows}"))).await;
    // An instance took it, committed its first 1 000 rows' progress (their records are left out
    // here, to show they are not done again) and died: its claim has run out.
    sql(
        &t,
        &format!(
            "UPDATE import_jobs SET status = 'running', lease_holder = gen_random_uuid(), \
         lease_expires_at = now() - interval '1 second', started_at = now(), processed_rows = 1000, created = 1000 \
         WHERE id = '{id}'"
        ),
    )
    .await;
    let other = t.instance(TestOptions::default()).await;
    let job = finished(&app, &admin, id).await;
    assert_eq!(job["status"], "succeeded", "{job}");
    assert_eq!(counts(&job), (2500, 2500, 2500, 0, 0, 0));
    assert_eq!(
        count_where(&t, "customers WHERE email LIKE 'c%@example.com'").await,
        1500,
        "rows 1001..2500, each once"
    );
    assert_eq!(count_where(&t, "customers WHERE email = 'c1000@example.com'").await, 0);
    assert_eq!(count_where(&t, "customers WHERE email = 'c1001@example.com'").await, 1);
    other.shutdown().await;
    t.stop().await;
}

#[actix_web::test]
async fn a_job_whose_uploader_lost_the_right_fails_without_writing_a_row() {
    let t = TestApp::start_with(no_runner()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (staff_id, staff) = register_staff(&app, "staff@example.com", "password-1").await;
    let id = queue(&app, upload(&staff, "customers", "", CSV, "name,email\nA,lost@example.com\n")).await;
    crate::crm_support::strip_roles(&t, staff_id).await;
    let other = t.instance(TestOptions::default()).await;
    let job = finished(&app, &admin, id).await;
    assert_eq!(
        (job["status"].as_str(), job["error"].as_str()),
        (Some("failed"), Some("the uploader no longer holds the permissions this import needs")),
        "{job}"
    );
    assert_eq!(count_where(&t, "customers WHERE email = 'lost@example.com'").await, 0);
    assert_eq!(event_names(&app, &admin, id).await, vec!["import.failed"]);
    other.shutdown().await;
    t.stop().await;
}

#[actix_web::test]
async fn two_jobs_upserting_the_same_keys_at_once_end_consistent() {
    let t = TestApp::start_with(no_runner()).await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let forward: String = (1..=300).map(|i| format!("K{i},k{i}@example.com,t{i}\n")).collect();
    let backward: String = (1..=300).rev().map(|i| format!("K{i} B,k{i}@example.com,t{i}\n")).collect();
    let a = queue(&app, upload(&admin, "customers", "mode=upsert", CSV, format!("name,email,tags\n{forward}"))).await;
    let b = queue(&app, upload(&admin, "customers", "mode=upsert", CSV, format!("name,email,tags\n{backward}"))).await;
    let one = t.instance(TestOptions::default()).await;
    let two = t.instance(TestOptions::default()).await;
    let (ja, jb) = (finished(&app, &admin, a).await, finished(&app, &admin, b).await);
    assert_eq!((ja["status"].as_str(), jb["status"].as_str()), (Some("succeeded"), Some("succeeded")), "{ja} {jb}");
    let (ca, cb) = (counts(&ja), counts(&jb));
    assert_eq!((ca.5, cb.5), (0, 0), "{ja} {jb}");
    assert_eq!(ca.2 + cb.2, 300, "each key made once: {ja} {jb}");
    assert_eq!(count_where(&t, "customers WHERE email LIKE 'k%@example.com' AND deleted_at IS NULL").await, 300);
    one.shutdown().await;
    two.shutdown().await;
    t.stop().await;
}

#[actix_web::test]
async fn a_hundred_thousand_bad_rows_are_all_reported_and_the_job_finishes() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let file = format!("name,email\n{}", "ragged\n".repeat(100_000));
    let id = queue(&app, upload(&admin, "customers", "", CSV, file)).await;
    let job = finished(&app, &admin, id).await;
    assert_eq!((job["status"].as_str(), counts(&job)), (Some("succeeded"), (100_000, 100_000, 0, 0, 0, 100_000)));
    let (_, _, page) = call(&app, get(&format!("{IMPORTS}/{id}/errors?page=1000&page_size=100"), &admin)).await;
    assert_eq!(page["pagination"]["total"], 100_000);
    assert_eq!(page["data"][99]["row"], 100_000);
    t.stop().await;
}

#[actix_web::test]
async fn products_upsert_by_sku_and_a_stock_take_sets_on_hand_by_one_adjustment() {
    use crate::commerce_support::{location, post as commerce_post, product, stock};
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    // Products: the create endpoint's rules (a price needs a currency), then an upsert by SKU.
    let file = "sku,name,price,currency\nP-1,Bolt,100,USD\nP-2,Nut,5,\nP-3,Washer,,\n";
    let id = queue(&app, upload(&admin, "products", "", CSV, file)).await;
    assert_eq!(counts(&finished(&app, &admin, id).await), (3, 3, 2, 0, 0, 1));
    assert_eq!(errors(&app, &admin, id).await, vec![(2, "currency".to_owned(), "VALIDATION_ERROR".to_owned())]);
    let again = "sku,name,price,currency\np-1,Bolt,120,USD\nP-3,Washer,,\nP-4,Screw,,\n";
    let id = queue(&app, upload(&admin, "products", "mode=upsert", CSV, again)).await;
    assert_eq!(counts(&finished(&app, &admin, id).await), (3, 3, 1, 1, 1, 0), "SKUs match in any case");
    // A stock take: a missing record is made, an existing one is set by one adjustment.
    product(&app, &admin, "B-1").await;
    let nut = product(&app, &admin, "N-1").await;
    let main = location(&app, &admin, "MAIN").await;
    let record = stock(&app, &admin, &nut, &main, 10).await;
    let reserve = format!("/api/v1/warehouse/inventory/{}/reserve", record["id"].as_str().expect("id"));
    let (status, body) =
        commerce_post(&app, &admin, &reserve, serde_json::json!({"quantity": 4, "order_id": Uuid::now_v7()})).await;
    assert_eq!(status.as_u16(), 200, "{body}");
    let take =
        "sku,location_code,quantity_on_hand,reorder_point\nB-1,MAIN,7,2\nN-1,MAIN,6,\nN-1,MAIN,3,\nX-9,MAIN,1,\n";
    let id = queue(&app, upload(&admin, "inventory", "mode=upsert", CSV, take)).await;
    let job = finished(&app, &admin, id).await;
    assert_eq!(counts(&job), (4, 4, 1, 1, 0, 2), "{job}");
    let found = errors(&app, &admin, id).await;
    assert_eq!((found[0].0, found[0].2.as_str()), (3, "INSUFFICIENT_STOCK"), "{found:?}");
    assert_eq!((found[1].0, found[1].1.as_str(), found[1].2.as_str()), (4, "sku", "NOT_FOUND"));
    let nut_record =
        expect(&app, 200, get(&format!("/api/v1/warehouse/inventory/{}", record["id"].as_str().expect("id")), &admin))
            .await;
    assert_eq!((nut_record["quantity_on_hand"].as_i64(), nut_record["quantity_reserved"].as_i64()), (Some(6), Some(4)));
    let (_, movements) = crate::commerce_support::get(
        &app,
        &admin,
        &format!("/api/v1/warehouse/stock-movements/inventory/{}", record["id"].as_str().expect("id")),
    )
    .await;
    let types: Vec<&str> =
        movements["data"].as_array().expect("movements").iter().filter_map(|m| m["type"].as_str()).collect();
    assert!(types.contains(&"Adjustment"), "{movements}");
    // The same take again changes nothing.
    let id = queue(
        &app,
        upload(
            &admin,
            "inventory",
            "mode=upsert",
            CSV,
            "sku,location_code,quantity_on_hand,reorder_point\nB-1,MAIN,7,2\n",
        ),
    )
    .await;
    assert_eq!(counts(&finished(&app, &admin, id).await), (1, 1, 0, 0, 1, 0));
    t.stop().await;
}
