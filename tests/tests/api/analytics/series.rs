//! The revenue time series over the data set: labels, bucket starts, zero-filled gaps, clipping to
//! the range, and the defaults. USD won deals close on 2020-01-16 (500 000), 2020-02-09 (250 000),
//! 2020-03-11 (800 000) and 2020-03-16 (200 000); live customers were created on 2020-01-06 and
//! 2020-01-15 (the deleted c99 on 2020-01-08), the rest within the last 210 days.

use actix_web::test::init_service;
use api::build_app;
use serde_json::{json, Value};
use tally_tests::{login, TestApp, ADMIN_EMAIL, ADMIN_PASSWORD};

use super::dataset::{fetch, seed};

fn item(period: &str, starts: &str, cents: i64, new_customers: i64) -> Value {
    json!({"period": period, "timestamp": format!("{starts}T00:00:00Z"),
           "revenue": {"cents": cents, "currency": "USD"}, "new_customers": new_customers})
}

#[actix_web::test]
async fn revenue_series_buckets_labels_and_gaps() {
    let t = TestApp::start().await;
    let app = init_service(build_app(t.state.clone())).await;
    seed(&t, &app).await;
    let admin = login(&app, ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let series = |query: &str| format!("/revenue/time-series?{query}");

    let months = fetch(&app, &admin, &series("start_date=2019-12-01&end_date=2020-04-30")).await;
    assert_eq!(
        months,
        json!([
            item("2019-12", "2019-12-01", 0, 0),
            item("2020-01", "2020-01-01", 500_000, 2),
            item("2020-02", "2020-02-01", 250_000, 0),
            item("2020-03", "2020-03-01", 1_000_000, 0),
            item("2020-04", "2020-04-01", 0, 0),
        ])
    );
    assert_eq!(
        fetch(&app, &admin, &series("granularity=month&start_date=2019-12-01&end_date=2020-04-30")).await,
        months
    );

    // ISO weeks: 2020-01-01 is a Wednesday in 2020-W01, which starts on Monday 2019-12-30.
    let weeks = fetch(&app, &admin, &series("granularity=week&start_date=2020-01-01&end_date=2020-01-31")).await;
    assert_eq!(
        weeks,
        json!([
            item("2020-W01", "2019-12-30", 0, 0),
            item("2020-W02", "2020-01-06", 0, 1),
            item("2020-W03", "2020-01-13", 500_000, 1),
            item("2020-W04", "2020-01-20", 0, 0),
            item("2020-W05", "2020-01-27", 0, 0),
        ])
    );
    let days = fetch(&app, &admin, &series("granularity=day&start_date=2020-01-14&end_date=2020-01-17")).await;
    assert_eq!(
        days,
        json!([
            item("2020-01-14", "2020-01-14", 0, 0),
            item("2020-01-15", "2020-01-15", 0, 1),
            item("2020-01-16", "2020-01-16", 500_000, 0),
            item("2020-01-17", "2020-01-17", 0, 0),
        ])
    );
    // A range that starts inside a bucket counts only its own days (c08 on 2020-01-06 is outside).
    let clipped = fetch(&app, &admin, &series("start_date=2020-01-10&end_date=2020-01-31")).await;
    assert_eq!(clipped, json!([item("2020-01", "2020-01-01", 500_000, 1)]));
    let one_day = fetch(&app, &admin, &series("granularity=DAY&start_date=2020-03-16&end_date=2020-03-16")).await;
    assert_eq!(one_day, json!([item("2020-03-16", "2020-03-16", 200_000, 0)]));

    // Defaults: end today (UTC); 12 months, 12 ISO weeks or 30 days. The ten recent customers all fall
    // in the default 12 months; no revenue does.
    let today = time::OffsetDateTime::now_utc().date();
    let monthly = fetch(&app, &admin, &series("")).await;
    let monthly = monthly.as_array().expect("array");
    assert_eq!(monthly.len(), 12);
    let this_month = format!("{:04}-{:02}", today.year(), u8::from(today.month()));
    assert_eq!(monthly[11]["period"], json!(this_month));
    assert_eq!(monthly.iter().map(|i| i["new_customers"].as_i64().unwrap_or(-1)).sum::<i64>(), 10);
    assert!(monthly.iter().all(|i| i["revenue"]["cents"] == json!(0)));
    let weekly = fetch(&app, &admin, &series("granularity=week")).await;
    let (iso_year, iso_week, _) = today.to_iso_week_date();
    assert_eq!(weekly.as_array().map(Vec::len), Some(12));
    assert_eq!(weekly[11]["period"], json!(format!("{iso_year:04}-W{iso_week:02}")));
    let daily = fetch(&app, &admin, &series("granularity=day")).await;
    assert_eq!(daily.as_array().map(Vec::len), Some(30));
    assert_eq!(daily[29]["period"], json!(today.to_string()));
    assert_eq!(daily[0]["period"], json!((today - time::Duration::days(29)).to_string()));
    // Only an end date: the default start is counted back from it.
    let to_march = fetch(&app, &admin, &series("end_date=2020-03-31")).await;
    assert_eq!(to_march[0]["period"], json!("2019-04"));
    assert_eq!(to_march[11], item("2020-03", "2020-03-01", 1_000_000, 0));
    t.stop().await;
}
