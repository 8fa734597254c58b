//! The known data set of the analytics tests, written straight into the test database, and the
//! requests around it. Every expected figure in `analytics.rs` is worked out by hand from the table
//! below (docs/analytics.md has the formulas).
//!
//! Live customers (days are "days before now", so lifetimes do not depend on the day the test runs;
//! the two 2020 customers churned long before any lifecycle window):
//!
//! | id  | status   | tier       | rep  | created | churned | lifetime |
//! |-----|----------|------------|------|---------|---------|----------|
//! | c01 | lead     | free       | rita | 14      |         | 2 w      |
//! | c02 | prospect | basic      | rita | 35      |         | 5 w      |
//! | c03 | customer | pro        | rita | 70      |         | 10 w     |
//! | c04 | customer | enterprise | rita | 140     |         | 20 w     |
//! | c05 | churned  | basic      | sam  | 56      | 14      | 6 w      |
//! | c06 | customer | free       | sam  | 210     |         | 30 w     |
//! | c07 | lead     | free       |      | 21      |         | 3 w      |
//! | c08 | churned  | pro        | sam  | 2020-01-06 | 2020-03-30 | 12 w |
//! | c09 | churned  | free       |      | 2020-01-15 | 2020-02-12 | 4 w  |
//! | c10 | prospect | basic      | rita | 84      |         | 12 w     |
//! | c11 | customer | pro        | sam  | 49      |         | 7 w      |
//! | c12 | churned  | enterprise | rita | 64      | 1       | 9 w      |
//!
//! Deleted: customer c99 (with a won deal, an interaction and recent history), deal k07, interaction
//! i06, the user "Gone Rep" (k14 stays: it is a live deal of a live customer), and the customers the
//! registration subscriber made for every user.

use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{Service, ServiceResponse};
use actix_web::test::TestRequest;
use diesel_async::{RunQueryDsl, SimpleAsyncConnection};
use serde_json::Value;
use tally_tests::{bearer, call, register, TestApp};
use uuid::Uuid;

pub const BASE: &str = "/api/v1/customer-mgmt/analytics";

/// The users the data set assigns work to.
pub struct Reps {
    pub rita: Uuid,
    pub sam: Uuid,
}

const CUSTOMERS_SQL: &str = "
INSERT INTO customers (id, name, email, status, tier, assigned_to, created_at, churned_at, deleted_at) VALUES
 ('c0000000-0000-4000-8000-000000000001', 'C01', 'c01@example.com', 'lead', 'free', '{rita}', now() - interval '14 days', NULL, NULL),
 ('c0000000-0000-4000-8000-000000000002', 'C02', 'c02@example.com', 'prospect', 'basic', '{rita}', now() - interval '35 days', NULL, NULL),
 ('c0000000-0000-4000-8000-000000000003', 'C03', 'c03@example.com', 'customer', 'pro', '{rita}', now() - interval '70 days', NULL, NULL),
 ('c0000000-0000-4000-8000-000000000004', 'C04', 'c04@example.com', 'customer', 'enterprise', '{rita}', now() - interval '140 days', NULL, NULL),
 ('c0000000-0000-4000-8000-000000000005', 'C05', 'c05@example.com', 'churned', 'basic', '{sam}', now() - interval '56 days', now() - interval '14 days', NULL),
 ('c0000000-0000-4000-8000-000000000006', 'C06', 'c06@example.com', 'customer', 'free', '{sam}', now() - interval '210 days', NULL, NULL),
 ('c0000000-0000-4000-8000-000000000007', 'C07', 'c07@example.com', 'lead', 'free', NULL, now() - interval '21 days', NULL, NULL),
 ('c0000000-0000-4000-8000-000000000008', 'C08', 'c08@example.com', 'churned', 'pro', '{sam}', '2020-01-06T10:00:00Z', '2020-03-30T10:00:00Z', NULL),
 ('c0000000-0000-4000-8000-000000000009', 'C09', 'c09@example.com', 'churned', 'free', NULL, '2020-01-15T00:00:00Z', '2020-02-12T00:00:00Z', NULL),
 ('c0000000-0000-4000-8000-000000000010', 'C10', 'c10@example.com', 'prospect', 'basic', '{rita}', now() - interval '84 days', NULL, NULL),
 ('c0000000-0000-4000-8000-000000000011', 'C11', 'c11@example.com', 'customer', 'pro', '{sam}', now() - interval '49 days', NULL, NULL),
 ('c0000000-0000-4000-8000-000000000012', 'C12', 'c12@example.com', 'churned', 'enterprise', '{rita}', now() - interval '64 days', now() - interval '1 day', NULL),
 ('c0000000-0000-4000-8000-000000000099', 'C99', 'c99@example.com', 'customer', 'enterprise', '{rita}', '2020-01-08T10:00:00Z', NULL, now() - interval '1 day');

-- Status history: (customer, from, to, days ago); c08 and c09 in 2020.
INSERT INTO customer_status_history (customer_id, from_status, to_status, changed_at)
SELECT ('c0000000-0000-4000-8000-0000000000' || c)::uuid, f, t, now() - make_interval(days => d) FROM (VALUES
 ('01', NULL, 'lead', 14),
 ('02', NULL, 'lead', 35), ('02', 'lead', 'prospect', 3),
 ('03', NULL, 'lead', 70), ('03', 'lead', 'prospect', 60), ('03', 'prospect', 'customer', 20),
 ('04', NULL, 'lead', 140), ('04', 'lead', 'prospect', 130), ('04', 'prospect', 'customer', 100),
 ('05', NULL, 'lead', 56), ('05', 'lead', 'prospect', 50), ('05', 'prospect', 'customer', 40), ('05', 'customer', 'churned', 14),
 ('06', NULL, 'lead', 210), ('06', 'lead', 'prospect', 205), ('06', 'prospect', 'customer', 200),
 ('07', NULL, 'lead', 21),
 ('10', NULL, 'lead', 84), ('10', 'lead', 'prospect', 80), ('10', 'prospect', 'customer', 70),
 ('10', 'customer', 'churned', 25), ('10', 'churned', 'prospect', 5),
 ('11', NULL, 'lead', 49), ('11', 'lead', 'prospect', 40), ('11', 'prospect', 'customer', 2),
 ('12', NULL, 'lead', 64), ('12', 'lead', 'prospect', 60), ('12', 'prospect', 'customer', 50), ('12', 'customer', 'churned', 1),
 ('99', NULL, 'lead', 21), ('99', 'lead', 'prospect', 15), ('99', 'prospect', 'customer', 10)
) AS h(c, f, t, d);
INSERT INTO customer_status_history (customer_id, from_status, to_status, changed_at) VALUES
 ('c0000000-0000-4000-8000-000000000008', NULL, 'lead', '2020-01-06T10:00:00Z'),
 ('c0000000-0000-4000-8000-000000000008', 'lead', 'prospect', '2020-01-20T10:00:00Z'),
 ('c0000000-0000-4000-8000-000000000008', 'prospect', 'customer', '2020-02-03T10:00:00Z'),
 ('c0000000-0000-4000-8000-000000000008', 'customer', 'churned', '2020-03-30T10:00:00Z'),
 ('c0000000-0000-4000-8000-000000000009', NULL, 'lead', '2020-01-15T00:00:00Z'),
 ('c0000000-0000-4000-8000-000000000009', 'lead', 'prospect', '2020-01-20T00:00:00Z'),
 ('c0000000-0000-4000-8000-000000000009', 'prospect', 'customer', '2020-01-25T00:00:00Z'),
 ('c0000000-0000-4000-8000-000000000009', 'customer', 'churned', '2020-02-12T00:00:00Z');
";

/// Deals: (id, customer, rep, stage, value, currency, created, closed, deleted).
const DEALS_SQL: &str = "
INSERT INTO deals (id, customer_id, assigned_to, name, value, currency, stage, probability,
                   expected_close_date, actual_close_date, created_at, deleted_at)
SELECT ('d0000000-0000-4000-8000-0000000000' || k)::uuid, ('c0000000-0000-4000-8000-0000000000' || c)::uuid,
       rep::uuid, 'Deal ' || k, v, cur, s,
       CASE s WHEN 'lead' THEN 10 WHEN 'qualified' THEN 25 WHEN 'proposal' THEN 50
              WHEN 'negotiation' THEN 75 WHEN 'closed_won' THEN 100 ELSE 0 END,
       '2030-01-01'::date, closed::date, created::timestamptz, CASE WHEN gone THEN now() END
FROM (VALUES
 ('01', '03', '{rita}', 'closed_won', 500000, 'USD', '2020-01-06', '2020-01-16', false),
 ('02', '04', '{rita}', 'closed_won', 250000, 'USD', '2020-01-10', '2020-02-09', false),
 ('03', '04', '{rita}', 'closed_won', 900000, 'EUR', '2020-01-13', '2020-01-18', false),
 ('04', '02', '{rita}', 'closed_lost', 100000, 'USD', '2020-02-03', '2020-02-28', false),
 ('05', '10', '{rita}', 'negotiation', 300000, 'USD', '2020-03-02', NULL, false),
 ('06', '01', '{rita}', 'lead', 40000, 'USD', '2020-03-02', NULL, false),
 ('07', '03', '{rita}', 'closed_won', 10000000, 'USD', '2020-01-06', '2020-01-16', true),
 ('08', '99', '{rita}', 'closed_won', 7000000, 'USD', '2020-01-08', '2020-01-20', false),
 ('09', '06', '{sam}', 'closed_won', 800000, 'USD', '2020-02-10', '2020-03-11', false),
 ('10', '11', '{sam}', 'closed_lost', 50000, 'USD', '2020-01-01', '2020-01-21', false),
 ('11', '11', '{sam}', 'closed_lost', 70000, 'GBP', '2020-01-01', '2020-01-31', false),
 ('12', '05', '{sam}', 'proposal', 120000, 'USD', '2020-01-01', NULL, false),
 ('13', '11', '{sam}', 'qualified', 60000, 'EUR', '2020-01-01', NULL, false),
 ('14', '06', '{gone}', 'closed_won', 200000, 'USD', '2020-03-01', '2020-03-16', false)
) AS d(k, c, rep, s, v, cur, created, closed, gone);

-- Stage history: each deal's stages in order, one hour apart from 2020-01-01.
INSERT INTO deal_stage_history (deal_id, from_stage, to_stage, changed_at)
SELECT ('d0000000-0000-4000-8000-0000000000' || k)::uuid, lag(s) OVER (PARTITION BY k ORDER BY n), s,
       '2020-01-01T00:00:00Z'::timestamptz + make_interval(hours => n::int)
FROM (VALUES
 ('01', 'lead,qualified,proposal,negotiation,closed_won'),
 ('02', 'lead,proposal,closed_won'),
 ('03', 'lead,qualified,negotiation,closed_won'),
 ('04', 'lead,qualified,proposal,closed_lost'),
 ('05', 'lead,proposal,qualified,negotiation'),
 ('06', 'lead'),
 ('07', 'lead,qualified,proposal,negotiation,closed_won'),
 ('08', 'lead,qualified,closed_won'),
 ('09', 'lead,qualified,proposal,negotiation,closed_won'),
 ('10', 'lead,closed_lost'),
 ('11', 'lead,qualified,closed_lost'),
 ('12', 'lead,qualified,proposal,negotiation,proposal'),
 ('13', 'lead,proposal,qualified'),
 ('14', 'lead,negotiation,closed_won')
) AS h(k, stages), unnest(string_to_array(stages, ',')) WITH ORDINALITY AS u(s, n);
";

/// Interactions: (id, customer, type, outcome, duration seconds, follow-up, deleted).
const INTERACTIONS_SQL: &str = "
INSERT INTO interactions (id, customer_id, type, direction, outcome, subject, created_by, started_at, ended_at,
                          duration_sec, follow_up_required, deleted_at)
SELECT ('e0000000-0000-4000-8000-0000000000' || i)::uuid, ('c0000000-0000-4000-8000-0000000000' || c)::uuid,
       t, 'outbound', o, 'Interaction ' || i, '{rita}'::uuid, '2020-02-01T09:00:00Z'::timestamptz,
       '2020-02-01T09:00:00Z'::timestamptz + make_interval(secs => secs), secs, follow_up, CASE WHEN gone THEN now() END
FROM (VALUES
 ('01', '03', 'call', 'successful', 600, true, false),
 ('02', '03', 'call', 'no_answer', 60, false, false),
 ('03', '04', 'email', NULL, NULL, true, false),
 ('04', '06', 'meeting', 'successful', 3600, true, false),
 ('05', '11', 'chat', 'scheduled', 300, false, false),
 ('06', '03', 'call', 'failed', 1200, true, true),
 ('07', '99', 'sms', 'busy', 120, true, false),
 ('08', '01', 'note', 'not_interested', 0, false, false)
) AS x(i, c, t, o, secs, follow_up, gone);
";

pub async fn sql(t: &TestApp, statements: &str) {
    let mut conn = t.state.pool.get().await.expect("connection");
    conn.batch_execute(statements).await.unwrap_or_else(|e| panic!("{e}\n{statements}"));
}

async fn count(t: &TestApp, query: &str) -> i64 {
    #[derive(diesel::QueryableByName)]
    struct Count {
        #[diesel(sql_type = diesel::sql_types::BigInt)]
        n: i64,
    }
    let mut conn = t.state.pool.get().await.expect("connection");
    let row: Count = diesel::sql_query(query).get_result(&mut conn).await.expect("count");
    row.n
}

/// The registration subscriber makes a customer for every user, asynchronously: wait for all of
/// them, then delete them, so they join the deleted records that must not count.
pub async fn delete_user_customers(t: &TestApp) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let missing =
        "SELECT count(*) AS n FROM users u WHERE NOT EXISTS (SELECT 1 FROM customers c WHERE c.user_id = u.id)";
    while count(t, missing).await > 0 {
        assert!(Instant::now() < deadline, "the registration subscriber did not create every user's customer");
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    sql(t, "UPDATE customers SET deleted_at = now() WHERE user_id IS NOT NULL AND deleted_at IS NULL").await;
}

/// Registers the reps (and a deleted one), then writes the data set.
pub async fn seed<S, B>(t: &TestApp, app: &S) -> Reps
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let (rita, _) = register(app, "rita@example.com", "password-1").await;
    let (sam, _) = register(app, "sam@example.com", "password-1").await;
    let (gone, _) = register(app, "gone@example.com", "password-1").await;
    delete_user_customers(t).await;
    sql(t, &format!(
        "UPDATE users SET name = 'Rita Rep' WHERE id = '{rita}'; UPDATE users SET name = 'Sam Seller' WHERE id = '{sam}';
         UPDATE users SET deleted_at = now() WHERE id = '{gone}';"
    ))
    .await;
    let fill = |template: &str| {
        template
            .replace("{rita}", &rita.to_string())
            .replace("{sam}", &sam.to_string())
            .replace("{gone}", &gone.to_string())
    };
    sql(t, &fill(CUSTOMERS_SQL)).await;
    sql(t, &fill(DEALS_SQL)).await;
    sql(t, &fill(INTERACTIONS_SQL)).await;
    Reps { rita, sam }
}

/// `GET {BASE}{path}`: asserts 200 and returns `data`.
pub async fn fetch<S, B>(app: &S, token: &str, path: &str) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let request = TestRequest::get().uri(&format!("{BASE}{path}")).insert_header(bearer(token));
    let (status, _, body) = call(app, request).await;
    assert_eq!(status.as_u16(), 200, "GET {path}: {body}");
    assert_eq!(body["status"], "success", "{body}");
    body["data"].clone()
}

/// `GET {BASE}{path}`: asserts the error status and code; returns the error object.
pub async fn fail<S, B>(app: &S, token: Option<&str>, path: &str, status: u16, code: &str) -> Value
where
    S: Service<actix_http::Request, Response = ServiceResponse<B>, Error = actix_web::Error>,
    B: MessageBody,
{
    let mut request = TestRequest::get().uri(&format!("{BASE}{path}"));
    if let Some(token) = token {
        request = request.insert_header(bearer(token));
    }
    let (actual, _, body) = call(app, request).await;
    assert_eq!((actual.as_u16(), body["error"]["code"].as_str()), (status, Some(code)), "GET {path}: {body}");
    body["error"].clone()
}
