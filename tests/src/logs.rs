//! Test logs, only when asked for: `TEST_LOG=debug` (any `tracing` filter, e.g.
//! `TEST_LOG=api=debug,postgres_toolkit=trace`) prints the spans and events of the app under test,
//! captured per test by the harness. Without it the tests print nothing of the app's.

use std::sync::Once;

static INIT: Once = Once::new();

/// Installs the subscriber once per test process when `TEST_LOG` is set; called by every
/// [`crate::TestDb::new`].
pub fn init_from_env() {
    INIT.call_once(|| {
        let Ok(filter) = std::env::var("TEST_LOG") else {
            return;
        };
        let filter = tracing_subscriber::EnvFilter::try_new(&filter)
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("debug"));
        let _ = tracing_subscriber::fmt()
            .with_env_filter(filter)
            .with_span_events(tracing_subscriber::fmt::format::FmtSpan::CLOSE)
            .with_test_writer()
            .try_init();
    });
}
