//! Operational endpoints: Prometheus metrics.

use actix_web::{web, HttpResponse};

use crate::app::AppState;

pub fn configure(cfg: &mut web::ServiceConfig) {
    cfg.service(web::resource("/metrics").route(web::get().to(metrics)));
}

/// Gauges are read at scrape time, so they are never stale.
#[utoipa::path(get, path = "/metrics", tag = "operations",
    responses((status = 200, description = "Prometheus text format", content_type = "text/plain")))]
pub async fn metrics(state: web::Data<AppState>) -> HttpResponse {
    let m = &state.metrics;
    let pool = state.pool.status();
    m.pool_connections.with_label_values(&["size"]).set(pool.size as i64);
    m.pool_connections.with_label_values(&["available"]).set(pool.available as i64);
    m.pool_connections.with_label_values(&["max"]).set(pool.max_size as i64);
    m.pool_connections.with_label_values(&["waiting"]).set(pool.waiting as i64);
    m.bus_queue_depth.set(state.bus.queue_depth());
    match infrastructure::events::log::outbox_lag_seconds(&state.pool).await {
        Ok(lag) => m.outbox_lag_ms.set((lag * 1000.0) as i64),
        Err(error) => tracing::warn!(%error, "could not read outbox lag"),
    }
    match state.dead_letters.count_open().await {
        Ok(count) => m.dead_letters.set(count),
        Err(error) => tracing::warn!(%error, "could not count dead letters"),
    }
    HttpResponse::Ok().content_type("text/plain; version=0.0.4").body(m.render())
}
