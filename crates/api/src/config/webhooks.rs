//! Webhook settings (docs/webhooks.md): `WEBHOOK_RETRY_SCHEDULE`, `WEBHOOK_DISABLE_AFTER`,
//! `WEBHOOK_ALLOW_PRIVATE` and `WEBHOOK_SECRET_KEY`.

use std::time::Duration;

use hmac::{Hmac, Mac};
use sha2::Sha256;

use super::{invalid, ConfigError, Env, MIN_JWT_SECRET_BYTES};

pub const DEFAULT_RETRY_SCHEDULE: &str = "5s,5m,30m,2h,5h,10h,10h";
const MAX_RETRIES: usize = 20;
const LONGEST_DELAY: Duration = Duration::from_secs(7 * 24 * 3600);
const LONGEST_DISABLE_AFTER: Duration = Duration::from_secs(365 * 24 * 3600);

#[derive(Clone, PartialEq, Eq)]
pub struct WebhookSettings {
    /// Delays between attempts; a delivery gets one attempt more than there are delays.
    pub retry_schedule: Vec<Duration>,
    /// An endpoint that only failed this long is disabled.
    pub disable_after: Duration,
    /// Loopback, private and link-local destinations (and `http` to them) are allowed.
    pub allow_private: bool,
    /// The key endpoint secrets are derived from; `None`: derived from `JWT_SECRET`.
    secret_key: Option<String>,
}

impl std::fmt::Debug for WebhookSettings {
    // The key never reaches a log line.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookSettings")
            .field("retry_schedule", &self.retry_schedule)
            .field("disable_after", &self.disable_after)
            .field("allow_private", &self.allow_private)
            .finish_non_exhaustive()
    }
}

impl WebhookSettings {
    pub(super) fn read(env: &Env<'_>) -> Result<Self, ConfigError> {
        let schedule = env.string("WEBHOOK_RETRY_SCHEDULE", DEFAULT_RETRY_SCHEDULE);
        let retry_schedule = parse_schedule(&schedule)?;
        let secret_key = env.get("WEBHOOK_SECRET_KEY");
        if secret_key.as_ref().is_some_and(|key| key.len() < MIN_JWT_SECRET_BYTES) {
            return Err(invalid("WEBHOOK_SECRET_KEY", format!("must be at least {MIN_JWT_SECRET_BYTES} bytes long")));
        }
        let disable_after = env.duration("WEBHOOK_DISABLE_AFTER", Duration::from_secs(5 * 24 * 3600))?;
        if disable_after > LONGEST_DISABLE_AFTER {
            return Err(invalid("WEBHOOK_DISABLE_AFTER", "at most 365 days"));
        }
        Ok(Self {
            retry_schedule,
            disable_after,
            allow_private: env.boolean("WEBHOOK_ALLOW_PRIVATE", false)?,
            secret_key,
        })
    }

    /// The server key of endpoint secrets: `WEBHOOK_SECRET_KEY`, else one derived from the JWT
    /// secret (so rotating `JWT_SECRET` then changes every endpoint's secret).
    pub fn server_key(&self, jwt_secret: Option<&str>) -> Result<Vec<u8>, ConfigError> {
        if let Some(key) = &self.secret_key {
            return Ok(key.as_bytes().to_vec());
        }
        let jwt = jwt_secret.ok_or_else(|| invalid("WEBHOOK_SECRET_KEY", "set it, or JWT_SECRET to derive it from"))?;
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(jwt.as_bytes()) else {
            unreachable!("HMAC accepts every key length")
        };
        mac.update(b"tally webhook server key v1");
        Ok(mac.finalize().into_bytes().to_vec())
    }
}

/// `5s,5m,30m`: comma-separated durations; `none` for no retry.
fn parse_schedule(text: &str) -> Result<Vec<Duration>, ConfigError> {
    const NAME: &str = "WEBHOOK_RETRY_SCHEDULE";
    if text.eq_ignore_ascii_case("none") {
        return Ok(Vec::new());
    }
    let delays = text
        .split(',')
        .map(|part| {
            let part = part.trim();
            humantime::parse_duration(part)
                .map_err(|_| invalid(NAME, format!("'{part}' is not a duration such as 5s, 5m or 2h")))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if delays.len() > MAX_RETRIES {
        return Err(invalid(NAME, format!("at most {MAX_RETRIES} delays")));
    }
    if delays.iter().any(|d| *d > LONGEST_DELAY) {
        return Err(invalid(NAME, "each delay is at most 7 days"));
    }
    Ok(delays)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<WebhookSettings, ConfigError> {
        let lookup = |name: &str| pairs.iter().find(|(n, _)| *n == name).map(|(_, v)| (*v).to_owned());
        WebhookSettings::read(&Env { lookup: &lookup })
    }

    #[test]
    fn defaults_follow_the_decisions() {
        let s = read(&[]).expect("defaults");
        let hours = |h: u64| Duration::from_secs(h * 3600);
        assert_eq!(
            s.retry_schedule,
            [
                Duration::from_secs(5),
                Duration::from_secs(300),
                Duration::from_secs(1800),
                hours(2),
                hours(5),
                hours(10),
                hours(10)
            ]
        );
        assert_eq!(s.disable_after, hours(120));
        assert!(!s.allow_private);
    }

    #[test]
    fn settings_are_checked() {
        let s = read(&[("WEBHOOK_RETRY_SCHEDULE", "100ms, 1s"), ("WEBHOOK_ALLOW_PRIVATE", "true")]).expect("valid");
        assert_eq!(s.retry_schedule, [Duration::from_millis(100), Duration::from_secs(1)]);
        assert!(s.allow_private);
        assert!(read(&[("WEBHOOK_RETRY_SCHEDULE", "none")]).expect("valid").retry_schedule.is_empty());
        for bad in ["5s,soon", "5s,,5m", "8d"] {
            assert_eq!(read(&[("WEBHOOK_RETRY_SCHEDULE", bad)]).expect_err(bad).name, "WEBHOOK_RETRY_SCHEDULE");
        }
        assert_eq!(read(&[("WEBHOOK_DISABLE_AFTER", "later")]).expect_err("bad").name, "WEBHOOK_DISABLE_AFTER");
        assert_eq!(read(&[("WEBHOOK_DISABLE_AFTER", "7000y")]).expect_err("huge").name, "WEBHOOK_DISABLE_AFTER");
        assert_eq!(read(&[("WEBHOOK_SECRET_KEY", "short")]).expect_err("short").name, "WEBHOOK_SECRET_KEY");
    }

    #[test]
    fn the_server_key_is_set_or_derived_and_never_printed() {
        let own = read(&[("WEBHOOK_SECRET_KEY", "k".repeat(40).as_str())]).expect("valid");
        assert_eq!(own.server_key(Some("j".repeat(40).as_str())).expect("key"), "k".repeat(40).into_bytes());
        assert!(!format!("{own:?}").contains("kkkk"));
        let derived = read(&[]).expect("valid");
        let one = derived.server_key(Some("a".repeat(40).as_str())).expect("key");
        assert_eq!(one.len(), 32);
        assert_ne!(one, derived.server_key(Some("b".repeat(40).as_str())).expect("key"));
        assert_ne!(one, "a".repeat(40).into_bytes(), "not the JWT secret itself");
        assert!(derived.server_key(None).is_err());
    }
}
