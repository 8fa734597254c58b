//! Per-client-IP rate limits (docs/identity.md): a token bucket (GCRA) per
//! policy and IP, in-process through `governor` (actix-governor's engine),
//! or in Redis when `REDIS_URL` is set so every instance shares the limits.

use std::collections::HashMap;
use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use actix_governor::governor::clock::{Clock, DefaultClock};
use actix_governor::governor::middleware::StateInformationMiddleware;
use actix_governor::governor::state::keyed::DefaultKeyedStateStore;
use actix_governor::governor::{Quota, RateLimiter};
use async_trait::async_trait;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Policy {
    Login,
    Register,
    Refresh,
    Authenticated,
    Public,
}

impl Policy {
    pub const ALL: [Policy; 5] = [Self::Login, Self::Register, Self::Refresh, Self::Authenticated, Self::Public];

    /// (requests, per window, burst)
    fn rule(self) -> (u32, Duration, u32) {
        match self {
            Self::Login => (5, Duration::from_secs(60), 1),
            Self::Register => (3, Duration::from_secs(60), 1),
            Self::Refresh => (10, Duration::from_secs(60), 10),
            Self::Authenticated => (100, Duration::from_secs(60), 100),
            Self::Public => (1000, Duration::from_secs(3600), 1000),
        }
    }

    /// Time between two tokens.
    fn emission_interval(self) -> Duration {
        let (limit, window, _) = self.rule();
        window / limit.max(1)
    }

    pub fn limit(self) -> u32 {
        self.rule().0
    }

    fn burst(self) -> u32 {
        self.rule().2
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Login => "login",
            Self::Register => "register",
            Self::Refresh => "refresh",
            Self::Authenticated => "authenticated",
            Self::Public => "public",
        }
    }
}

/// The outcome, with what the `X-RateLimit-*` headers report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Decision {
    pub allowed: bool,
    pub limit: u32,
    pub remaining: u32,
    /// Unix seconds when the bucket is full again.
    pub reset: u64,
    /// Seconds until a denied request may be retried.
    pub retry_after: u64,
}

#[async_trait]
pub trait RateLimitStore: Send + Sync {
    async fn check(&self, policy: Policy, client: &str) -> Decision;
}

fn unix_now() -> Duration {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default()
}

type Keyed = RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock, StateInformationMiddleware>;

/// Single-instance limiter.
pub struct InProcessLimiter {
    limiters: HashMap<Policy, Keyed>,
    clock: DefaultClock,
}

impl Default for InProcessLimiter {
    fn default() -> Self {
        let limiters = Policy::ALL
            .into_iter()
            .map(|policy| {
                let burst = NonZeroU32::new(policy.burst()).unwrap_or(NonZeroU32::MIN);
                let quota = Quota::with_period(policy.emission_interval())
                    .map_or(Quota::per_second(burst), |q| q.allow_burst(burst));
                (policy, RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>())
            })
            .collect();
        Self { limiters, clock: DefaultClock::default() }
    }
}

#[async_trait]
impl RateLimitStore for InProcessLimiter {
    async fn check(&self, policy: Policy, client: &str) -> Decision {
        let now = unix_now();
        let interval = policy.emission_interval();
        let Some(limiter) = self.limiters.get(&policy) else {
            return Decision {
                allowed: true,
                limit: policy.limit(),
                remaining: policy.limit(),
                reset: now.as_secs(),
                retry_after: 0,
            };
        };
        // Forget idle clients now and then so the map cannot grow without bound.
        if limiter.len() > 100_000 {
            limiter.retain_recent();
        }
        match limiter.check_key(&client.to_owned()) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                let refill = interval * policy.burst().saturating_sub(remaining);
                Decision {
                    allowed: true,
                    limit: policy.limit(),
                    remaining,
                    reset: (now + refill).as_secs(),
                    retry_after: 0,
                }
            }
            Err(not_until) => {
                let wait = not_until.wait_time_from(self.clock.now());
                let refill = interval * policy.burst();
                Decision {
                    allowed: false,
                    limit: policy.limit(),
                    remaining: 0,
                    reset: (now + refill.max(wait)).as_secs(),
                    retry_after: wait.as_secs_f64().ceil() as u64,
                }
            }
        }
    }
}

/// GCRA in one Lua script, using Redis' own clock so instances agree.
const GCRA_SCRIPT: &str = r"
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then tat = now end
local allow_at = tat - (burst - 1) * interval
if now < allow_at then
  return {0, 0, allow_at - now, tat}
end
local new_tat = tat + interval
redis.call('SET', KEYS[1], new_tat, 'PX', math.max(1, new_tat - now))
local remaining = math.floor((now - (new_tat - burst * interval)) / interval)
return {1, remaining, 0, new_tat}
";

/// Shared limiter for several instances.
pub struct RedisLimiter {
    pool: deadpool_redis::Pool,
    prefix: String,
    script: redis::Script,
    /// Used when Redis is unreachable: limits stay enforced per instance.
    fallback: InProcessLimiter,
}

impl RedisLimiter {
    pub fn new(pool: deadpool_redis::Pool, prefix: &str) -> Self {
        Self {
            pool,
            prefix: prefix.to_owned(),
            script: redis::Script::new(GCRA_SCRIPT),
            fallback: InProcessLimiter::default(),
        }
    }
}

#[async_trait]
impl RateLimitStore for RedisLimiter {
    async fn check(&self, policy: Policy, client: &str) -> Decision {
        let key = format!("{}:ratelimit:{}:{client}", self.prefix, policy.name());
        let interval_ms = policy.emission_interval().as_millis() as u64;
        let outcome: Result<(i64, i64, i64, i64), String> = async {
            let mut conn = self.pool.get().await.map_err(|e| e.to_string())?;
            self.script
                .key(&key)
                .arg(interval_ms)
                .arg(policy.burst())
                .invoke_async(&mut conn)
                .await
                .map_err(|e| e.to_string())
        }
        .await;
        match outcome {
            Ok((allowed, remaining, wait_ms, tat_ms)) => {
                let reset_ms = u64::try_from(tat_ms).unwrap_or(0);
                Decision {
                    allowed: allowed == 1,
                    limit: policy.limit(),
                    remaining: u32::try_from(remaining.max(0)).unwrap_or(0),
                    reset: reset_ms.div_ceil(1000),
                    retry_after: u64::try_from(wait_ms.max(0)).unwrap_or(0).div_ceil(1000),
                }
            }
            Err(error) => {
                tracing::warn!(%error, "redis rate limiter unavailable; limiting in-process");
                self.fallback.check(policy, client).await
            }
        }
    }
}

/// Parsed `TRUSTED_PROXIES`.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<ipnet::IpNet>);

impl TrustedProxies {
    pub fn parse(entries: &[String]) -> Result<Self, String> {
        let mut nets = Vec::new();
        for entry in entries {
            let net = entry
                .parse::<ipnet::IpNet>()
                .or_else(|_| entry.parse::<IpAddr>().map(ipnet::IpNet::from))
                .map_err(|_| format!("'{entry}' is not an IP address or CIDR"))?;
            nets.push(net);
        }
        Ok(Self(nets))
    }

    pub fn trusts(&self, ip: &IpAddr) -> bool {
        self.0.iter().any(|net| net.contains(ip))
    }

    /// The client address. Only a trusted peer's `X-Forwarded-For` is read,
    /// from the right (each proxy appends the address it saw), skipping
    /// trusted proxies: the first untrusted address is the client. Entries
    /// left of it were written by the client and are never believed.
    pub fn client_ip(&self, peer: Option<IpAddr>, forwarded_for: Option<&str>) -> String {
        // `::ffff:10.0.0.1` is 10.0.0.1: a dual-stack listener must not see two clients.
        let Some(peer) = peer.map(|ip| ip.to_canonical()) else { return "unknown".to_owned() };
        if !self.trusts(&peer) {
            return limited_as(peer);
        }
        let mut nearest_trusted = peer;
        for entry in forwarded_for.unwrap_or_default().rsplit(',').map(str::trim) {
            match entry.parse::<IpAddr>().map(|ip| ip.to_canonical()) {
                Ok(ip) if self.trusts(&ip) => nearest_trusted = ip,
                Ok(ip) => return limited_as(ip),
                // Garbage where an address should be: stop at the last hop we trust.
                Err(_) => break,
            }
        }
        limited_as(nearest_trusted)
    }
}

/// The bucket an address is counted in: an IPv4 address alone, an IPv6 address by its /64, the
/// smallest network one subscriber is given, from which they can pick any of 2^64 addresses.
fn limited_as(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => v4.to_string(),
        IpAddr::V6(v6) => {
            let network = u128::from(v6) & !((1u128 << 64) - 1);
            format!("{}/64", std::net::Ipv6Addr::from(network))
        }
    }
}

pub type SharedLimiter = Arc<dyn RateLimitStore>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ipv6_clients_are_counted_by_their_64() {
        let proxies = TrustedProxies::default();
        let one = proxies.client_ip("2001:db8:1:2::1".parse().ok(), None);
        let other = proxies.client_ip("2001:db8:1:2:ffff:ffff:ffff:ffff".parse().ok(), None);
        assert_eq!(one, "2001:db8:1:2::/64");
        assert_eq!(one, other, "one /64, one bucket");
        assert_ne!(one, proxies.client_ip("2001:db8:1:3::1".parse().ok(), None));
        assert_eq!(proxies.client_ip("::ffff:10.0.0.1".parse().ok(), None), "10.0.0.1");
    }

    #[tokio::test]
    async fn login_allows_one_then_waits_twelve_seconds() {
        let limiter = InProcessLimiter::default();
        let first = limiter.check(Policy::Login, "10.0.0.1").await;
        assert!(first.allowed);
        assert_eq!((first.limit, first.remaining), (5, 0));
        let second = limiter.check(Policy::Login, "10.0.0.1").await;
        assert!(!second.allowed);
        assert!((11..=12).contains(&second.retry_after), "{second:?}");
        assert!(limiter.check(Policy::Login, "10.0.0.2").await.allowed, "per client IP");
    }

    #[tokio::test]
    async fn authenticated_allows_a_burst_of_100() {
        let limiter = InProcessLimiter::default();
        for n in 0..100 {
            let decision = limiter.check(Policy::Authenticated, "ip").await;
            assert!(decision.allowed, "request {n}");
            assert_eq!(decision.remaining, 99 - n);
        }
        assert!(!limiter.check(Policy::Authenticated, "ip").await.allowed);
    }

    #[test]
    fn proxies_are_trusted_only_when_listed() {
        let proxies = TrustedProxies::parse(&["10.0.0.0/8".into(), "192.168.1.5".into()]).expect("valid");
        let peer: IpAddr = "10.1.2.3".parse().expect("ip");
        assert_eq!(proxies.client_ip(Some(peer), Some("203.0.113.9, 10.1.2.3")), "203.0.113.9");
        let stranger: IpAddr = "198.51.100.7".parse().expect("ip");
        assert_eq!(proxies.client_ip(Some(stranger), Some("203.0.113.9")), "198.51.100.7");
        assert_eq!(proxies.client_ip(Some(peer), Some("garbage")), "10.1.2.3");
        // A client prepending its own choice does not escape: read from the right.
        assert_eq!(proxies.client_ip(Some(peer), Some("1.2.3.4, 203.0.113.9")), "203.0.113.9");
        assert_eq!(proxies.client_ip(Some(peer), Some("1.2.3.4, 203.0.113.9, 192.168.1.5")), "203.0.113.9");
        assert_eq!(proxies.client_ip(Some(peer), Some("garbage, 203.0.113.9")), "203.0.113.9");
        assert_eq!(proxies.client_ip(Some(peer), Some("203.0.113.9, garbage")), "10.1.2.3");
        assert_eq!(proxies.client_ip(Some(peer), Some("192.168.1.5")), "192.168.1.5");
        assert_eq!(proxies.client_ip(Some(peer), None), "10.1.2.3");
        assert_eq!(proxies.client_ip(None, Some("203.0.113.9")), "unknown");
        let mapped: IpAddr = "::ffff:10.1.2.3".parse().expect("ip");
        assert_eq!(proxies.client_ip(Some(mapped), Some("::ffff:203.0.113.9")), "203.0.113.9");
        assert!(TrustedProxies::parse(&["not-an-ip".into()]).is_err());
    }
}
