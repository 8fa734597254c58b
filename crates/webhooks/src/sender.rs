//! Sends webhook requests from a thread of its own: actix's client is single-threaded, and a
//! slow or dead receiver then holds nothing the API or the event handlers use. Each request is
//! checked against the address policy on the addresses its host resolves to *now*, connects
//! to a checked address, follows no redirect, and gives up after 15 s; at most 1 KiB of the
//! answer is read.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use time::OffsetDateTime;
use tokio::sync::{mpsc, oneshot};
use url::Url;

use super::address::{literal_ip, AddressPolicy};

/// A delivery attempt gets this long, connection and answer included.
pub const DELIVERY_TIMEOUT: Duration = Duration::from_secs(15);
/// How much of an answer's body is read and kept.
pub const KEPT_BODY_BYTES: usize = 1024;
const MAX_ERROR_CHARS: usize = 500;

/// One signed request, ready to go.
#[derive(Debug, Clone)]
pub struct Outbound {
    pub url: Url,
    pub webhook_id: String,
    pub timestamp: i64,
    pub signature: String,
    pub body: String,
}

/// What one attempt came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttemptOutcome {
    pub attempted_at: OffsetDateTime,
    /// The answer's status; `None` when no answer came.
    pub status: Option<u16>,
    pub duration: Duration,
    /// The first 1 KiB of the answer's body.
    pub body: String,
    /// Why no acceptable answer came, in a few words.
    pub error: Option<String>,
}

impl AttemptOutcome {
    /// A 2xx answer within the time limit.
    pub fn succeeded(&self) -> bool {
        matches!(self.status, Some(200..=299))
    }

    pub(crate) fn failed(attempted_at: OffsetDateTime, started: Instant, error: impl std::fmt::Display) -> Self {
        let mut error = storable(error.to_string());
        truncate_at_char(&mut error, MAX_ERROR_CHARS);
        Self { attempted_at, status: None, duration: started.elapsed(), body: String::new(), error: Some(error) }
    }
}

struct Job {
    outbound: Outbound,
    reply: oneshot::Sender<AttemptOutcome>,
}

/// A handle on the sending thread; the thread ends when the last handle is dropped.
#[derive(Clone)]
pub struct HttpSender {
    jobs: mpsc::UnboundedSender<Job>,
}

impl HttpSender {
    /// Starts the sending thread.
    pub fn start(policy: AddressPolicy) -> std::io::Result<Self> {
        let (jobs, mut queue) = mpsc::unbounded_channel::<Job>();
        let tls = Arc::new(tls_config().map_err(std::io::Error::other)?);
        std::thread::Builder::new().name("tally-webhooks".into()).spawn(move || {
            actix_rt::System::new().block_on(async move {
                let client = awc::Client::builder()
                    .connector(awc::Connector::new().rustls_0_23(tls).timeout(DELIVERY_TIMEOUT).limit(256))
                    .timeout(DELIVERY_TIMEOUT)
                    .disable_redirects()
                    .no_default_headers()
                    .finish();
                while let Some(job) = queue.recv().await {
                    let client = client.clone();
                    actix_rt::spawn(async move {
                        let outcome = send(&client, policy, job.outbound).await;
                        let _ = job.reply.send(outcome);
                    });
                }
            });
        })?;
        Ok(Self { jobs })
    }

    /// Sends one request and reports what came of it.
    pub async fn send(&self, outbound: Outbound) -> AttemptOutcome {
        let attempted_at = OffsetDateTime::now_utc();
        let started = Instant::now();
        let (reply, answer) = oneshot::channel();
        if self.jobs.send(Job { outbound, reply }).is_err() {
            return AttemptOutcome::failed(attempted_at, started, "the webhook sender has stopped");
        }
        answer.await.unwrap_or_else(|_| AttemptOutcome::failed(attempted_at, started, "the webhook sender has stopped"))
    }
}

/// rustls with the ring provider and the operating system's trusted roots.
fn tls_config() -> Result<rustls::ClientConfig, rustls::Error> {
    let mut roots = rustls::RootCertStore::empty();
    let found = rustls_native_certs::load_native_certs();
    for error in &found.errors {
        tracing::warn!(%error, "could not read a trusted root certificate");
    }
    let (added, ignored) = roots.add_parsable_certificates(found.certs);
    if added == 0 {
        tracing::warn!(ignored, "no trusted root certificates found: https webhooks will fail");
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// Where a request goes: an address that passed the policy, and every address the URL's host
/// name resolved to (none for a URL naming an address), which no recorded error may name.
#[derive(Debug)]
struct Destination {
    address: SocketAddr,
    resolved: Vec<IpAddr>,
}

/// The address to connect to: every address the host has now must pass the policy.
async fn destination(policy: AddressPolicy, url: &Url) -> Result<Destination, String> {
    let port = url.port_or_known_default().ok_or("the URL has no port")?;
    let scheme = url.scheme();
    if let Some(ip) = literal_ip(url) {
        policy.check_address(scheme, ip).map_err(|refused| format!("refused: {refused}"))?;
        return Ok(Destination { address: SocketAddr::new(ip, port), resolved: Vec::new() });
    }
    let host = url.host_str().ok_or("the URL has no host")?;
    let addresses: Vec<SocketAddr> =
        tokio::net::lookup_host((host, port)).await.map_err(|e| format!("cannot resolve {host}: {e}"))?.collect();
    let address = *addresses.first().ok_or("the host has no address")?;
    for candidate in &addresses {
        policy
            .check_address(scheme, candidate.ip())
            .map_err(|refused| format!("refused: {}", refused.of_name(host)))?;
    }
    Ok(Destination { address, resolved: addresses.iter().map(SocketAddr::ip).collect() })
}

/// `error` without the addresses a host name resolved to (docs/webhooks.md), each replaced by the
/// name, should the HTTP client's message carry one.
fn conceal(error: &str, resolved: &[IpAddr], host: &str) -> String {
    resolved.iter().fold(error.to_owned(), |text, ip| text.replace(&ip.to_string(), host))
}

async fn send(client: &awc::Client, policy: AddressPolicy, outbound: Outbound) -> AttemptOutcome {
    let attempted_at = OffsetDateTime::now_utc();
    let started = Instant::now();
    let attempt = async {
        let Destination { address, resolved } = destination(policy, &outbound.url).await?;
        let host = outbound.url.host_str().unwrap_or("the host");
        let request = client
            .post(outbound.url.as_str())
            .address(address)
            .insert_header(("content-type", "application/json"))
            .insert_header(("user-agent", concat!("Tally-Webhooks/", env!("CARGO_PKG_VERSION"))))
            .insert_header(("webhook-id", outbound.webhook_id.as_str()))
            .insert_header(("webhook-timestamp", outbound.timestamp.to_string()))
            .insert_header(("webhook-signature", outbound.signature.as_str()));
        let mut response =
            request.send_body(outbound.body).await.map_err(|e| conceal(&e.to_string(), &resolved, host))?;
        let status = response.status().as_u16();
        let mut kept: Vec<u8> = Vec::new();
        while kept.len() < KEPT_BODY_BYTES {
            match response.next().await {
                Some(Ok(chunk)) => kept.extend_from_slice(&chunk[..chunk.len().min(KEPT_BODY_BYTES - kept.len())]),
                // A body cut short still leaves the status the receiver gave.
                Some(Err(_)) | None => break,
            }
        }
        Ok::<_, String>((status, kept))
    };
    match tokio::time::timeout(DELIVERY_TIMEOUT, attempt).await {
        Ok(Ok((status, kept))) => {
            let mut body = storable(String::from_utf8_lossy(&kept).into_owned());
            truncate_at_char(&mut body, KEPT_BODY_BYTES);
            let error = (!(200..=299).contains(&status)).then(|| format!("answered {status}"));
            AttemptOutcome { attempted_at, status: Some(status), duration: started.elapsed(), body, error }
        }
        Ok(Err(error)) => AttemptOutcome::failed(attempted_at, started, error),
        Err(_) => AttemptOutcome::failed(attempted_at, started, "no answer within 15 s"),
    }
}

/// Text PostgreSQL can keep: a receiver's NUL bytes become U+FFFD.
fn storable(text: String) -> String {
    if text.contains('\0') {
        text.replace('\0', "\u{fffd}")
    } else {
        text
    }
}

/// Cuts `text` to at most `max` bytes without splitting a character.
fn truncate_at_char(text: &mut String, max: usize) {
    if text.len() > max {
        let mut end = max;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_whole_characters() {
        let mut text = "é".repeat(600);
        truncate_at_char(&mut text, KEPT_BODY_BYTES);
        assert_eq!(text.len(), 1024);
        let mut odd = format!("a{}", "é".repeat(600));
        truncate_at_char(&mut odd, KEPT_BODY_BYTES);
        assert_eq!(odd.len(), 1023);
        assert_eq!(storable("a\0b".to_owned()), "a\u{fffd}b");
        let mut short = "ok".to_owned();
        truncate_at_char(&mut short, KEPT_BODY_BYTES);
        assert_eq!(short, "ok");
    }

    #[tokio::test]
    async fn internal_destinations_are_refused_before_any_connection() {
        let strict = AddressPolicy { allow_private: false };
        for url in ["https://127.0.0.1:9/x", "https://localhost:9/x", "https://[::1]:9/x"] {
            let url = Url::parse(url).expect("url");
            let refused = destination(strict, &url).await.expect_err("refused");
            assert!(refused.starts_with("refused:"), "{refused}");
        }
        let open = AddressPolicy { allow_private: true };
        let url = Url::parse("http://127.0.0.1:9/x").expect("url");
        let literal = destination(open, &url).await.expect("allowed");
        assert_eq!((literal.address, literal.resolved), ("127.0.0.1:9".parse().expect("addr"), vec![]));
    }

    #[tokio::test]
    async fn what_a_name_resolved_to_is_never_named() {
        let strict = AddressPolicy { allow_private: false };
        let url = Url::parse("https://localhost:9/x").expect("url");
        let refused = destination(strict, &url).await.expect_err("refused");
        assert!(
            refused.contains("localhost") && !refused.contains("127.0.0.1") && !refused.contains("::1"),
            "{refused}"
        );
        let open = AddressPolicy { allow_private: true };
        let named = destination(open, &url).await.expect("allowed");
        assert!(named.resolved.contains(&named.address.ip()));
        let error = format!("Failed to connect to {}: refused", named.address);
        let concealed = conceal(&error, &named.resolved, "localhost");
        assert!(concealed.contains("localhost") && !concealed.contains(&named.address.ip().to_string()), "{concealed}");
    }
}
