//! `make bench-analytics`: latency of the analytics endpoints over a large data set.
//!
//! Creates a private database from the migrations (via `TestApp`), seeds 100 000 customers, 200 000
//! deals and 500 000 interactions (plus their status and stage histories) with set-based SQL, then
//! calls every endpoint through the real app, one request at a time, and prints median and p99.
//! A benchmark, not a test: it asserts nothing but HTTP 200.

use std::time::{Duration, Instant};

use actix_web::test::{init_service, TestRequest};
use api::build_app;
use diesel_async::{AsyncConnection, AsyncPgConnection, SimpleAsyncConnection};
use tally_tests::{bearer, call, login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

const CUSTOMERS: i64 = 100_000;
const DEALS: i64 = 200_000;
const INTERACTIONS: i64 = 500_000;
const REPS: i64 = 50;
const RUNS: usize = 50;
const WARM_UP: usize = 3;

/// Ids are `md5(<kind><n>)::uuid`, so rows can point at each other without joins.
const SEED_SQL: &[(&str, &str)] = &[
    ("reps", "
INSERT INTO users (id, email, name, password_hash)
SELECT md5('rep' || n)::uuid, 'rep' || n || '@bench.test', 'Rep ' || n, 'not-a-hash'
FROM generate_series(1, {reps}) AS n"),
    ("customers", "
INSERT INTO customers (id, name, email, status, tier, assigned_to, created_at, churned_at, deleted_at)
SELECT md5('c' || n)::uuid, 'Customer ' || n, 'c' || n || '@bench.test',
       CASE WHEN n % 40 = 7 THEN 'prospect' ELSE (ARRAY['lead', 'prospect', 'customer', 'churned'])[1 + n % 4] END,
       (ARRAY['free', 'basic', 'pro', 'enterprise'])[1 + (n / 4) % 4],
       CASE WHEN n % 10 = 0 THEN NULL ELSE md5('rep' || (1 + n % {reps}))::uuid END,
       created, CASE WHEN n % 4 = 3 AND n % 40 <> 7 THEN created + make_interval(days => 30) END,
       CASE WHEN n % 100 = 0 THEN now() END
FROM generate_series(1, {customers}) AS n,
     LATERAL (SELECT now() - make_interval(days => (50 + n % 730)::int, hours => (n % 24)::int) AS created) AS c"),
    // One row per move, ten days apart; one churned customer in ten was reactivated (churned → prospect).
    ("customer history", "
INSERT INTO customer_status_history (customer_id, from_status, to_status, changed_at)
SELECT md5('c' || n)::uuid, (ARRAY[NULL, 'lead', 'prospect', 'customer', 'churned'])[1 + step],
       (ARRAY['lead', 'prospect', 'customer', 'churned', 'prospect'])[1 + step],
       now() - make_interval(days => (50 + n % 730)::int, hours => (n % 24)::int) + make_interval(days => step * 10)
FROM generate_series(1, {customers}) AS n,
     generate_series(0, (n % 4 + CASE WHEN n % 40 = 7 THEN 1 ELSE 0 END)::int) AS step"),
    ("deals", "
INSERT INTO deals (id, customer_id, assigned_to, name, value, currency, stage, probability,
                   expected_close_date, actual_close_date, created_at, deleted_at)
SELECT md5('d' || n)::uuid, md5('c' || (1 + n % {customers}))::uuid, md5('rep' || (1 + n % {reps}))::uuid,
       'Deal ' || n, 1000 + (n * 7919) % 1000000,
       CASE WHEN n % 10 = 1 THEN 'EUR' WHEN n % 10 = 2 THEN 'GBP' ELSE 'USD' END,
       s.stage, s.probability, '2030-01-01'::date,
       CASE WHEN s.stage IN ('closed_won', 'closed_lost') THEN created::date + (n % 90)::int END,
       created, CASE WHEN n % 100 = 0 THEN now() END
FROM generate_series(1, {deals}) AS n,
     LATERAL (SELECT now() - make_interval(days => (90 + n % 700)::int) AS created) AS c,
     LATERAL (SELECT CASE WHEN n % 101 = 0 THEN 'qualified'
                          ELSE (ARRAY['lead', 'qualified', 'proposal', 'negotiation', 'closed_won', 'closed_lost'])[1 + n % 6]
                     END AS stage,
                     CASE WHEN n % 101 = 0 THEN 25 ELSE (ARRAY[10, 25, 50, 75, 100, 0])[1 + n % 6] END AS probability) AS s"),
    // Each deal's moves, five days apart; one deal in 101 went back from proposal to qualified.
    ("deal history", "
INSERT INTO deal_stage_history (deal_id, from_stage, to_stage, changed_at)
SELECT md5('d' || n)::uuid, CASE WHEN step > 0 THEN path[step] END, path[step + 1],
       now() - make_interval(days => (90 + n % 700)::int) + make_interval(days => step * 5)
FROM generate_series(1, {deals}) AS n,
     LATERAL (SELECT CASE WHEN n % 101 = 0 THEN ARRAY['lead', 'proposal', 'qualified']
                          WHEN n % 6 = 5
                          THEN (ARRAY['lead', 'qualified', 'proposal', 'negotiation'])[1:1 + (n / 6) % 4] || ARRAY['closed_lost']
                          ELSE (ARRAY['lead', 'qualified', 'proposal', 'negotiation', 'closed_won'])[1:1 + n % 6]
                     END AS path) AS p,
     generate_series(0, cardinality(path) - 1) AS step"),
    ("interactions", "
INSERT INTO interactions (id, customer_id, type, direction, outcome, subject, created_by, started_at, ended_at,
                          duration_sec, follow_up_required, deleted_at)
SELECT md5('i' || n)::uuid, md5('c' || (1 + n % {customers}))::uuid,
       (ARRAY['call', 'email', 'meeting', 'note', 'sms', 'chat'])[1 + n % 6], 'outbound',
       (ARRAY['successful', 'failed', 'no_answer', 'voicemail', 'busy', 'scheduled', 'not_interested', NULL])[1 + n % 8],
       'Interaction ' || n, md5('rep' || (1 + n % {reps}))::uuid, started,
       CASE WHEN n % 5 <> 0 THEN started + make_interval(secs => n % 3600) END,
       CASE WHEN n % 5 <> 0 THEN n % 3600 END, n % 5 = 1, CASE WHEN n % 100 = 0 THEN now() END
FROM generate_series(1, {interactions}) AS n,
     LATERAL (SELECT now() - make_interval(days => (n % 365)::int) AS started) AS s"),
    ("vacuum analyze", "VACUUM ANALYZE"),
];

const ENDPOINTS: &[&str] = &[
    "/customers/overview",
    "/customers/lifecycle?period=month",
    "/customers/lifecycle?period=year",
    "/customers/segmentation",
    "/deals/pipeline",
    "/deals/conversions",
    "/sales-reps/performance?top_n=10",
    "/revenue/time-series?granularity=month",
    "/revenue/time-series?granularity=day&start_date=2024-01-01&end_date=2026-09-26",
    "/interactions/insights",
];

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn millis(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

#[actix_web::main]
async fn main() {
    let t = TestApp::start().await;
    println!("database {}", t.db.name);
    {
        // Its own connection: the pool's carry a statement timeout that bulk inserts exceed.
        let mut conn = AsyncPgConnection::establish(&t.db.url).await.expect("connection");
        conn.batch_execute("SET synchronous_commit = off").await.expect("session settings");
        for (what, template) in SEED_SQL {
            let started = Instant::now();
            let statement = template
                .replace("{reps}", &REPS.to_string())
                .replace("{customers}", &CUSTOMERS.to_string())
                .replace("{deals}", &DEALS.to_string())
                .replace("{interactions}", &INTERACTIONS.to_string());
            conn.batch_execute(&statement).await.unwrap_or_else(|e| panic!("seeding {what}: {e}"));
            println!("seeded {what:<18} {}", millis(started.elapsed()));
        }
    }
    let app = init_service(build_app(t.state.clone())).await;
    let token = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    // Round-robin over the endpoints, so a burst of load elsewhere on the machine hits them all alike.
    let mut samples: Vec<Vec<Duration>> = vec![Vec::with_capacity(RUNS); ENDPOINTS.len()];
    for run in 0..WARM_UP + RUNS {
        for (path, timings) in ENDPOINTS.iter().zip(samples.iter_mut()) {
            let request =
                TestRequest::get().uri(&format!("/api/v1/customer-mgmt/analytics{path}")).insert_header(bearer(&token));
            let started = Instant::now();
            let (status, _, body) = call(&app, request).await;
            let elapsed = started.elapsed();
            assert_eq!(status.as_u16(), 200, "{path}: {body}");
            if run >= WARM_UP {
                timings.push(elapsed);
            }
        }
    }
    println!("\n{:<82} {:>10} {:>10}", "endpoint (GET /api/v1/customer-mgmt/analytics…)", "median", "p99");
    for (path, timings) in ENDPOINTS.iter().zip(samples.iter_mut()) {
        timings.sort();
        println!("{path:<82} {:>10} {:>10}", millis(percentile(timings, 0.5)), millis(percentile(timings, 0.99)));
    }
    t.stop().await;
}
