//! Customer analytics (`/customer-mgmt/analytics`, read-only, permission `analytics:read`).
//! Figures come from `analytics_postgres`; formulas and choices are in `docs/analytics.md`.

pub mod requests;
pub mod responses;

use actix_web::{web, HttpResponse};
use analytics_postgres as analytics;

use self::requests::{today_utc, LifecycleQuery, PerformanceQuery, SeriesQuery};
use self::responses::{
    ConversionsView, CustomerOverviewView, InteractionInsightsView, LifecycleView, PipelineView, RepsView,
    RevenuePointView, SegmentationView,
};
use crate::app::AppState;
use crate::http::{ok, ApiError};

/// How many reps the customer overview lists.
const OVERVIEW_TOP_REPS: i64 = 5;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/analytics/customers/overview").route(web::get().to(customer_overview)))
        .service(web::resource("/analytics/customers/lifecycle").route(web::get().to(customer_lifecycle)))
        .service(web::resource("/analytics/customers/segmentation").route(web::get().to(customer_segmentation)))
        .service(web::resource("/analytics/deals/pipeline").route(web::get().to(deal_pipeline)))
        .service(web::resource("/analytics/deals/conversions").route(web::get().to(deal_conversions)))
        .service(web::resource("/analytics/sales-reps/performance").route(web::get().to(sales_rep_performance)))
        .service(web::resource("/analytics/revenue/time-series").route(web::get().to(revenue_time_series)))
        .service(web::resource("/analytics/interactions/insights").route(web::get().to(interaction_insights)));
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/analytics/customers/overview", tag = "analytics",
    responses((status = 200, body = CustomerOverviewView), (status = 403, description = "FORBIDDEN")),
    security(("bearer" = [])))]
pub async fn customer_overview(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let currency = state.settings.reporting_currency;
    // Two independent aggregates: run them side by side on two connections.
    let (customers, reps) = tokio::try_join!(
        analytics::customer_counts(&state.pool),
        analytics::rep_figures(&state.pool, currency.as_str(), OVERVIEW_TOP_REPS),
    )?;
    Ok(ok(CustomerOverviewView::new(customers, reps, currency)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/analytics/customers/lifecycle", tag = "analytics",
    params(LifecycleQuery),
    responses((status = 200, body = LifecycleView), (status = 400, description = "VALIDATION_ERROR: period"),
              (status = 403, description = "FORBIDDEN")),
    security(("bearer" = [])))]
pub async fn customer_lifecycle(
    state: web::Data<AppState>,
    query: web::Query<LifecycleQuery>,
) -> Result<HttpResponse, ApiError> {
    let period = query.period()?;
    let figures = analytics::lifecycle(&state.pool, period).await?;
    Ok(ok(LifecycleView::new(period.as_str(), figures)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/analytics/customers/segmentation", tag = "analytics",
    responses((status = 200, body = SegmentationView), (status = 403, description = "FORBIDDEN")),
    security(("bearer" = [])))]
pub async fn customer_segmentation(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let currency = state.settings.reporting_currency;
    let (customers, pipeline) = tokio::try_join!(
        analytics::customer_counts(&state.pool),
        analytics::pipeline(&state.pool, currency.as_str()),
    )?;
    Ok(ok(SegmentationView::new(customers, &pipeline, currency)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/analytics/deals/pipeline", tag = "analytics",
    responses((status = 200, body = PipelineView), (status = 403, description = "FORBIDDEN")),
    security(("bearer" = [])))]
pub async fn deal_pipeline(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let currency = state.settings.reporting_currency;
    let pipeline = analytics::pipeline(&state.pool, currency.as_str()).await?;
    Ok(ok(PipelineView::new(pipeline, currency)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/analytics/deals/conversions", tag = "analytics",
    responses((status = 200, body = ConversionsView), (status = 403, description = "FORBIDDEN")),
    security(("bearer" = [])))]
pub async fn deal_conversions(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let conversions = analytics::conversions(&state.pool).await?;
    Ok(ok(ConversionsView::from(conversions)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/analytics/sales-reps/performance", tag = "analytics",
    params(PerformanceQuery),
    responses((status = 200, body = RepsView), (status = 400, description = "VALIDATION_ERROR: top_n"),
              (status = 403, description = "FORBIDDEN")),
    security(("bearer" = [])))]
pub async fn sales_rep_performance(
    state: web::Data<AppState>,
    query: web::Query<PerformanceQuery>,
) -> Result<HttpResponse, ApiError> {
    let top_n = query.top_n()?;
    let currency = state.settings.reporting_currency;
    let reps = analytics::rep_figures(&state.pool, currency.as_str(), top_n).await?;
    Ok(ok(RepsView::new(reps, currency)))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/analytics/revenue/time-series", tag = "analytics",
    params(SeriesQuery),
    responses((status = 200, body = [RevenuePointView]),
              (status = 400, description = "VALIDATION_ERROR: bad date or granularity, start after end, over 1000 buckets"),
              (status = 403, description = "FORBIDDEN")),
    security(("bearer" = [])))]
pub async fn revenue_time_series(
    state: web::Data<AppState>,
    query: web::Query<SeriesQuery>,
) -> Result<HttpResponse, ApiError> {
    let range = query.range(today_utc())?;
    let currency = state.settings.reporting_currency;
    let buckets = analytics::revenue_series(&state.pool, range, currency.as_str()).await?;
    let items: Vec<RevenuePointView> = buckets.into_iter().map(|b| RevenuePointView::new(b, currency)).collect();
    Ok(ok(items))
}

#[utoipa::path(get, path = "/api/v1/customer-mgmt/analytics/interactions/insights", tag = "analytics",
    responses((status = 200, body = InteractionInsightsView), (status = 403, description = "FORBIDDEN")),
    security(("bearer" = [])))]
pub async fn interaction_insights(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let insights = analytics::interaction_insights(&state.pool).await?;
    Ok(ok(InteractionInsightsView::from(insights)))
}
