//! Prometheus metrics: HTTP traffic plus gauges read at scrape time.

use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounterVec, IntGauge, IntGaugeVec, Opts, Registry, TextEncoder,
};

pub struct Metrics {
    registry: Registry,
    pub http_requests: IntCounterVec,
    pub http_duration: HistogramVec,
    pub pool_connections: IntGaugeVec,
    pub bus_queue_depth: IntGauge,
    pub outbox_lag_ms: IntGauge,
    pub dead_letters: IntGauge,
    pub webhook_deliveries_pending: IntGauge,
    pub webhook_endpoints_failing: IntGauge,
}

impl Metrics {
    pub fn new() -> Result<Self, prometheus::Error> {
        let registry = Registry::new_custom(Some("tally".into()), None)?;
        let http_requests = IntCounterVec::new(
            Opts::new("http_requests_total", "HTTP requests by method, route and status"),
            &["method", "route", "status"],
        )?;
        let http_duration = HistogramVec::new(
            HistogramOpts::new("http_request_duration_seconds", "HTTP request latency by method and route")
                .buckets(vec![0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0]),
            &["method", "route"],
        )?;
        let pool_connections = IntGaugeVec::new(
            Opts::new(
                "db_pool_connections",
                "Database pool connections by pool (requests, events) and state (size, available, max, waiting)",
            ),
            &["pool", "state"],
        )?;
        let bus_queue_depth =
            IntGauge::new("bus_queue_depth", "Events accepted by this instance's bus and not yet handled")?;
        let outbox_lag_ms =
            IntGauge::new("outbox_lag_milliseconds", "Age of the oldest event not yet handed to the bus")?;
        let dead_letters = IntGauge::new("dead_letters", "Dead letters waiting for a retry")?;
        let webhook_deliveries_pending =
            IntGauge::new("webhook_deliveries_pending", "Webhook deliveries not yet succeeded or failed")?;
        let webhook_endpoints_failing = IntGauge::new(
            "webhook_endpoints_failing",
            "Webhook endpoints whose deliveries fail since their last success (disabled ones included)",
        )?;
        registry.register(Box::new(http_requests.clone()))?;
        registry.register(Box::new(http_duration.clone()))?;
        registry.register(Box::new(pool_connections.clone()))?;
        registry.register(Box::new(bus_queue_depth.clone()))?;
        registry.register(Box::new(outbox_lag_ms.clone()))?;
        registry.register(Box::new(dead_letters.clone()))?;
        registry.register(Box::new(webhook_deliveries_pending.clone()))?;
        registry.register(Box::new(webhook_endpoints_failing.clone()))?;
        Ok(Self {
            registry,
            http_requests,
            http_duration,
            pool_connections,
            bus_queue_depth,
            outbox_lag_ms,
            dead_letters,
            webhook_deliveries_pending,
            webhook_endpoints_failing,
        })
    }

    pub fn observe_request(&self, method: &str, route: &str, status: u16, seconds: f64) {
        self.http_requests.with_label_values(&[method, route, &status.to_string()]).inc();
        self.http_duration.with_label_values(&[method, route]).observe(seconds);
    }

    /// The text exposition format.
    pub fn render(&self) -> String {
        let mut buffer = Vec::new();
        if let Err(error) = TextEncoder::new().encode(&self.registry.gather(), &mut buffer) {
            tracing::error!(%error, "could not encode metrics");
        }
        String::from_utf8(buffer).unwrap_or_default()
    }
}
