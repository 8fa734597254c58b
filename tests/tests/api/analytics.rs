//! Customer analytics over a known data set (see `analytics/dataset.rs`): every figure of every
//! endpoint, the empty database, time-series buckets, parameter errors and the permission guard.

mod dataset;
mod series;

use actix_web::test::init_service;
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{login, register, register_staff, TestApp, TestOptions, ADMIN_EMAIL, ADMIN_PASSWORD};

use self::dataset::{delete_user_customers, fail, fetch, seed, sql};

fn usd(cents: i64) -> Value {
    json!({"cents": cents, "currency": "USD"})
}

#[actix_web::test]
async fn customer_deal_rep_and_interaction_figures_match_the_data_set() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let reps = seed(&t, &app).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let (rita, sam) = (reps.rita, reps.sam);

    let by_status = json!({"lead": 2, "prospect": 2, "customer": 4, "churned": 4});
    let by_tier = json!({"free": 4, "basic": 3, "pro": 3, "enterprise": 2});
    // Lifetimes 2+5+10+20+6+30+3+12+4+12+7+9 = 120 weeks over 12 customers.
    let overview = fetch(&app, &admin, "/customers/overview").await;
    assert_eq!(
        overview,
        json!({
            "total_customers": 12, "by_status": by_status, "by_tier": by_tier, "avg_lifetime_weeks": 10.0,
            "top_sales_reps": [
                {"sales_rep_id": sam, "active_customers": 2, "deals_won": 1, "total_revenue": usd(800_000)},
                {"sales_rep_id": rita, "active_customers": 2, "deals_won": 3, "total_revenue": usd(750_000)},
            ],
        })
    );

    // Open deals k05, k06, k12, k13; USD won deals k01 + k02 + k09 + k14.
    let segmentation = fetch(&app, &admin, "/customers/segmentation").await;
    assert_eq!(
        segmentation,
        json!({"total_customers": 12, "by_status": by_status, "by_tier": by_tier, "avg_lifetime_weeks": 10.0,
               "active_deals": 4, "total_revenue": usd(1_750_000)})
    );

    // 12 live deals, 9 in USD worth 2 360 000 (average 262 222.2); 5 won, 3 lost; close days
    // 10+30+5+25+30+20+30+15 = 165 over 8 closed deals.
    let pipeline = fetch(&app, &admin, "/deals/pipeline").await;
    assert_eq!(
        pipeline,
        json!({
            "total_deals": 12, "total_value": usd(2_360_000), "avg_deal_value": usd(262_222),
            "by_stage": {
                "lead": {"count": 1, "value": usd(40_000)},
                "qualified": {"count": 1, "value": usd(0)},
                "proposal": {"count": 1, "value": usd(120_000)},
                "negotiation": {"count": 1, "value": usd(300_000)},
                "closed_won": {"count": 5, "value": usd(1_750_000)},
                "closed_lost": {"count": 3, "value": usd(150_000)},
            },
            "win_rate": 62.5, "avg_days_to_close": 20.63,
        })
    );

    // Reached lead 12 → 10 went on; qualified 8 → 6; proposal 7 → 5; negotiation 6 → 4 won.
    let conversions = fetch(&app, &admin, "/deals/conversions").await;
    assert_eq!(
        conversions,
        json!({"lead_to_qualified": 83.33, "qualified_to_proposal": 75.0, "proposal_to_negotiation": 71.43,
               "negotiation_to_closed": 66.67})
    );

    // The deleted "Gone Rep" and the admin (nothing assigned) are not listed.
    let sam_figures = json!({
        "sales_rep_id": sam, "name": "Sam Seller", "active_customers": 2, "deals_won": 1, "deals_lost": 2,
        "total_revenue": usd(800_000), "avg_deal_value": usd(800_000), "win_rate": 33.33, "avg_days_to_close": 26.67,
    });
    let rita_figures = json!({
        "sales_rep_id": rita, "name": "Rita Rep", "active_customers": 2, "deals_won": 3, "deals_lost": 1,
        "total_revenue": usd(750_000), "avg_deal_value": usd(375_000), "win_rate": 75.0, "avg_days_to_close": 17.5,
    });
    let performance = fetch(&app, &admin, "/sales-reps/performance").await;
    assert_eq!(performance, json!({"reps": [sam_figures, rita_figures]}));
    assert_eq!(fetch(&app, &admin, "/sales-reps/performance?top_n=1").await, json!({"reps": [sam_figures]}));
    assert_eq!(fetch(&app, &admin, "/sales-reps/performance?top_n=100").await, performance);

    // Durations 600+60+3600+300+0 s over 5 ended interactions = 15.2 min; i03 has no outcome.
    let insights = fetch(&app, &admin, "/interactions/insights").await;
    assert_eq!(
        insights,
        json!({
            "total_interactions": 6,
            "by_type": {"call": 2, "email": 1, "meeting": 1, "note": 1, "sms": 0, "chat": 1},
            "by_outcome": {"successful": 2, "failed": 0, "no_answer": 1, "voicemail": 0, "busy": 0,
                           "scheduled": 1, "not_interested": 1},
            "avg_duration_minutes": 15.2, "pending_follow_ups": 3,
        })
    );
    t.stop().await;
}

#[actix_web::test]
async fn money_figures_follow_the_reporting_currency() {
    let t = TestApp::start_with(TestOptions::default().with_env("REPORTING_CURRENCY", "EUR")).await;
    let app = init_service(build_app(t.state.clone())).await;
    let reps = seed(&t, &app).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let eur = |cents: i64| json!({"cents": cents, "currency": "EUR"});
    let pipeline = fetch(&app, &admin, "/deals/pipeline").await;
    assert_eq!((&pipeline["total_value"], &pipeline["avg_deal_value"]), (&eur(960_000), &eur(480_000)));
    assert_eq!(pipeline["by_stage"]["closed_won"], json!({"count": 5, "value": eur(900_000)}));
    assert_eq!(pipeline["by_stage"]["qualified"], json!({"count": 1, "value": eur(60_000)}));
    assert_eq!(pipeline["by_stage"]["lead"], json!({"count": 1, "value": eur(0)}));
    let performance = fetch(&app, &admin, "/sales-reps/performance").await;
    assert_eq!(performance["reps"][0]["sales_rep_id"], json!(reps.rita));
    assert_eq!(
        (&performance["reps"][0]["total_revenue"], &performance["reps"][0]["avg_deal_value"]),
        (&eur(900_000), &eur(900_000))
    );
    assert_eq!(performance["reps"][1]["total_revenue"], eur(0));
    assert_eq!(fetch(&app, &admin, "/customers/segmentation").await["total_revenue"], eur(900_000));
    t.stop().await;
}

/// Lifecycle windows end now and reach back 7 days, a month, three months or a year; the data set
/// keeps every history row well away from those boundaries.
#[actix_web::test]
async fn lifecycle_rates_per_window() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    seed(&t, &app).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    // (period, leads → qualified, prospects → converted, customers → churned) worked out per window.
    let cases = [
        ("week", 33.33, 33.33, 20.0, 7..=7),      // 1/3, 1/3, 1/5
        ("month", 33.33, 50.0, 42.86, 28..=31),   // 1/3, 2/4, 3/7
        ("quarter", 75.0, 83.33, 42.86, 89..=92), // 6/8, 5/6, 3/7
        ("year", 80.0, 87.5, 42.86, 365..=366),   // 8/10, 7/8, 3/7
    ];
    for (period, to_prospect, to_customer, churn, days) in cases {
        let data = fetch(&app, &admin, &format!("/customers/lifecycle?period={period}")).await;
        assert_eq!(
            (&data["period"], &data["lead_to_prospect_rate"], &data["prospect_to_customer_rate"], &data["churn_rate"]),
            (&json!(period), &json!(to_prospect), &json!(to_customer), &json!(churn)),
            "{period}: {data}"
        );
        let (from, to) = (timestamp(&data["from"]), timestamp(&data["to"]));
        assert!(days.contains(&(to - from).whole_days()), "{period}: {data}");
        assert!((time::OffsetDateTime::now_utc() - to).abs() < time::Duration::seconds(30), "{data}");
    }
    let default = fetch(&app, &admin, "/customers/lifecycle").await;
    assert_eq!((&default["period"], &default["churn_rate"]), (&json!("month"), &json!(42.86)));
    t.stop().await;
}

fn timestamp(value: &Value) -> time::OffsetDateTime {
    let text = value.as_str().unwrap_or_else(|| panic!("not a timestamp: {value}"));
    assert!(text.ends_with('Z'), "{text}");
    time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).expect("RFC 3339")
}

#[actix_web::test]
async fn an_empty_database_gives_zeros_everywhere() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    delete_user_customers(&t).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let by_status = json!({"lead": 0, "prospect": 0, "customer": 0, "churned": 0});
    let by_tier = json!({"free": 0, "basic": 0, "pro": 0, "enterprise": 0});
    assert_eq!(
        fetch(&app, &admin, "/customers/overview").await,
        json!({"total_customers": 0, "by_status": by_status, "by_tier": by_tier, "avg_lifetime_weeks": 0.0,
               "top_sales_reps": []})
    );
    assert_eq!(
        fetch(&app, &admin, "/customers/segmentation").await,
        json!({"total_customers": 0, "by_status": by_status, "by_tier": by_tier, "avg_lifetime_weeks": 0.0,
               "active_deals": 0, "total_revenue": usd(0)})
    );
    let lifecycle = fetch(&app, &admin, "/customers/lifecycle?period=year").await;
    for rate in ["lead_to_prospect_rate", "prospect_to_customer_rate", "churn_rate"] {
        assert_eq!(lifecycle[rate], json!(0.0), "{lifecycle}");
    }
    let empty_stage = json!({"count": 0, "value": usd(0)});
    assert_eq!(
        fetch(&app, &admin, "/deals/pipeline").await,
        json!({"total_deals": 0, "total_value": usd(0), "avg_deal_value": usd(0),
               "by_stage": {"lead": empty_stage, "qualified": empty_stage, "proposal": empty_stage,
                            "negotiation": empty_stage, "closed_won": empty_stage, "closed_lost": empty_stage},
               "win_rate": 0.0, "avg_days_to_close": 0.0})
    );
    assert_eq!(
        fetch(&app, &admin, "/deals/conversions").await,
        json!({"lead_to_qualified": 0.0, "qualified_to_proposal": 0.0, "proposal_to_negotiation": 0.0,
               "negotiation_to_closed": 0.0})
    );
    assert_eq!(fetch(&app, &admin, "/sales-reps/performance").await, json!({"reps": []}));
    assert_eq!(
        fetch(&app, &admin, "/interactions/insights").await,
        json!({"total_interactions": 0,
               "by_type": {"call": 0, "email": 0, "meeting": 0, "note": 0, "sms": 0, "chat": 0},
               "by_outcome": {"successful": 0, "failed": 0, "no_answer": 0, "voicemail": 0, "busy": 0,
                              "scheduled": 0, "not_interested": 0},
               "avg_duration_minutes": 0.0, "pending_follow_ups": 0})
    );
    let series = fetch(&app, &admin, "/revenue/time-series?start_date=2026-01-01&end_date=2026-03-31").await;
    assert_eq!(
        series,
        json!([
            {"period": "2026-01", "timestamp": "2026-01-01T00:00:00Z", "revenue": usd(0), "new_customers": 0},
            {"period": "2026-02", "timestamp": "2026-02-01T00:00:00Z", "revenue": usd(0), "new_customers": 0},
            {"period": "2026-03", "timestamp": "2026-03-01T00:00:00Z", "revenue": usd(0), "new_customers": 0},
        ])
    );
    t.stop().await;
}

#[actix_web::test]
async fn bad_parameters_are_validation_errors() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let series = "/revenue/time-series";
    for (path, field) in [
        ("/customers/lifecycle?period=decade".to_owned(), "period"),
        ("/sales-reps/performance?top_n=0".to_owned(), "top_n"),
        ("/sales-reps/performance?top_n=101".to_owned(), "top_n"),
        ("/sales-reps/performance?top_n=ten".to_owned(), "top_n"),
        (format!("{series}?granularity=hour"), "granularity"),
        (format!("{series}?start_date=2026-02-30&end_date=2026-03-01"), "start_date"),
        (format!("{series}?start_date=2026-01-01&end_date=01/03/2026"), "end_date"),
        (format!("{series}?start_date=2026-03-02&end_date=2026-03-01"), "start_date"),
        // 2026-01-01 + 1000 days is 2028-09-27: 1001 daily buckets.
        (format!("{series}?granularity=day&start_date=2026-01-01&end_date=2028-09-27"), "granularity"),
        (format!("{series}?granularity=week&start_date=2000-01-01&end_date=2026-01-01"), "granularity"),
        (format!("{series}?granularity=month&start_date=1900-01-01&end_date=2026-01-01"), "granularity"),
    ] {
        let error = fail(&app, Some(&admin), &path, 400, "VALIDATION_ERROR").await;
        assert!(error["details"][field].is_string(), "{path}: {error}");
    }
    let most =
        fetch(&app, &admin, &format!("{series}?granularity=day&start_date=2026-01-01&end_date=2028-09-26")).await;
    assert_eq!(most.as_array().map(Vec::len), Some(1000));
    t.stop().await;
}

#[actix_web::test]
async fn analytics_need_the_read_permission() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let (user_id, token) = register(&app, "nobody@example.com", "password-1").await;
    // Before the user's first authenticated request, so no permission set is cached yet.
    sql(&t, &format!("DELETE FROM user_roles WHERE user_id = '{user_id}'")).await;
    let (_, reader) = register_staff(&app, "reader@example.com", "password-1").await;
    for path in [
        "/customers/overview",
        "/customers/lifecycle",
        "/customers/segmentation",
        "/deals/pipeline",
        "/deals/conversions",
        "/sales-reps/performance",
        "/revenue/time-series",
        "/interactions/insights",
    ] {
        fail(&app, Some(&token), path, 403, "FORBIDDEN").await;
        fail(&app, None, path, 401, "UNAUTHORIZED").await;
        // The seeded `staff` role holds `analytics:read`.
        fetch(&app, &reader, path).await;
    }
    // The guard runs before parameters are read.
    fail(&app, Some(&token), "/sales-reps/performance?top_n=0", 403, "FORBIDDEN").await;
    t.stop().await;
}

#[actix_web::test]
async fn openapi_documents_the_analytics_paths() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    let request = actix_web::test::TestRequest::get().uri("/api/v1/openapi.json");
    let doc = tally_tests::call(&app, request).await.2;
    for path in [
        "customers/overview",
        "customers/lifecycle",
        "customers/segmentation",
        "deals/pipeline",
        "deals/conversions",
        "sales-reps/performance",
        "revenue/time-series",
        "interactions/insights",
    ] {
        let operation = &doc["paths"][format!("/api/v1/customer-mgmt/analytics/{path}")]["get"];
        assert!(operation["responses"]["200"].is_object(), "{path}: {operation}");
        // Security is declared once for the document; guarded operations inherit it.
        assert!(operation.get("security").is_none(), "{path}");
    }
    assert_eq!(doc["security"], json!([{"bearer": []}]));
    t.stop().await;
}
