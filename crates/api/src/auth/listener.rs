//! Keeps `LiveAuth` connected to the database's `tally_auth` notices: live
//! while the listening connection is up, down (every request checked in the
//! database) from the moment it is lost until it is back and re-read.

use std::sync::Arc;
use std::time::Duration;

use identity_postgres::auth_notices::AuthListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::live::LiveAuth;

/// How long the connection may stay silent before it is pinged; also the
/// bound on the ping. A connection that died without a word is noticed
/// within twice this.
const QUIET: Duration = Duration::from_secs(5);
/// Pause between reconnection attempts.
const RETRY_EVERY: Duration = Duration::from_secs(1);

/// Connects once, so a new instance starts live when the database answers,
/// then keeps the state current until `stop` turns true.
pub async fn start(url: String, live: Arc<LiveAuth>, mut stop: watch::Receiver<bool>) -> JoinHandle<()> {
    let mut listener = connect(&url, &live).await;
    tokio::spawn(async move {
        loop {
            let Some(connected) = listener.as_mut() else {
                tokio::select! {
                    _ = tokio::time::sleep(RETRY_EVERY) => listener = connect(&url, &live).await,
                    _ = stop.changed() => break,
                }
                continue;
            };
            let next = tokio::select! {
                next = connected.next(QUIET) => next,
                _ = stop.changed() => break,
            };
            match next {
                Ok(Some(notice)) => live.apply(notice),
                Ok(None) => {}
                Err(error) => {
                    live.go_down();
                    tracing::warn!(%error, "auth listener lost its connection; checking tokens in the database");
                    listener = None;
                }
            }
        }
        live.go_down();
    })
}

async fn connect(url: &str, live: &LiveAuth) -> Option<AuthListener> {
    match tokio::time::timeout(QUIET, AuthListener::connect(url)).await {
        Ok(Ok((listener, revoked))) => {
            let count = revoked.tokens.len() + revoked.families.len();
            live.go_live(revoked);
            tracing::info!(revocations = count, "auth listener connected; tokens checked in memory");
            Some(listener)
        }
        Ok(Err(error)) => {
            tracing::debug!(%error, "auth listener cannot connect yet");
            None
        }
        Err(_) => None,
    }
}
