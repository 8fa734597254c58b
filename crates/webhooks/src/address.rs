//! Where a webhook may be sent (docs/webhooks.md): `https` to a public address, or, only when
//! `WEBHOOK_ALLOW_PRIVATE=true`, `http`/`https` to a loopback or private one. Checked on the URL
//! when an endpoint is saved and on every resolved address when a delivery is sent, so a name
//! that later resolves to an internal address (DNS rebinding) is refused too.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use url::{Host, Url};

/// Longest URL an endpoint may have.
pub const MAX_URL_CHARS: usize = 2048;

/// Whether loopback, private and link-local destinations are allowed (`WEBHOOK_ALLOW_PRIVATE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressPolicy {
    pub allow_private: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefusedDestination {
    #[error("must be an absolute http(s) URL of at most 2048 characters")]
    NotAUrl,
    #[error("must use https")]
    NotHttps,
    #[error("must not carry a user name, password or fragment")]
    Credentials,
    #[error("{0} is a loopback, private or link-local address; webhooks go to public addresses only")]
    Internal(IpAddr),
    #[error("http is allowed only to loopback or private addresses; {0} is public, use https")]
    PlainToPublic(IpAddr),
}

impl RefusedDestination {
    /// The refusal of an address that the host name `host` resolved to, without that address: a
    /// recorded attempt never names where a name pointed (docs/webhooks.md).
    pub fn of_name(&self, host: &str) -> String {
        match self {
            Self::Internal(_) => format!(
                "{host} resolves to a loopback, private or link-local address; webhooks go to public addresses only"
            ),
            Self::PlainToPublic(_) => {
                format!(
                    "http is allowed only to loopback or private addresses; {host} resolves to a public one, use https"
                )
            }
            other => other.to_string(),
        }
    }
}

/// An address no webhook may reach unless private destinations are allowed: loopback, private
/// (RFC 1918, unique local), link-local, carrier-grade NAT, unspecified, broadcast, multicast,
/// documentation and benchmarking ranges, and IPv6 forms that embed such an IPv4 address.
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_internal_v4(v4),
        IpAddr::V6(v6) => is_internal_v6(v6),
    }
}

fn is_internal_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT, 100.64.0.0/10
        || (a == 198 && (b == 18 || b == 19)) // benchmarking, 198.18.0.0/15
        || (a == 192 && b == 0 && ip.octets()[2] == 0) // IETF protocol assignments, 192.0.0.0/24
        || a >= 240 // reserved
}

fn is_internal_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_internal_v4(v4);
    }
    let first = ip.segments()[0];
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (first & 0xfe00) == 0xfc00 // unique local, fc00::/7
        || (first & 0xffc0) == 0xfe80 // link-local, fe80::/10
        || (first & 0xffc0) == 0xfec0 // site-local (deprecated), fec0::/10
        || first == 0x2001 && ip.segments()[1] == 0x0db8 // documentation
        || first == 0x0064 && ip.segments()[1] == 0xff9b // NAT64 of any IPv4 address
        || first == 0x2002 // 6to4 of any IPv4 address
        || (first == 0x2001 && ip.segments()[1] == 0) // Teredo, 2001::/32
        || (first == 0 && ip.segments()[1..6].iter().all(|&s| s == 0)) // IPv4-compatible, ::a.b.c.d
}

impl AddressPolicy {
    /// Checks a URL as an endpoint's owner writes it; names are checked again, resolved, at send time.
    pub fn check_url(self, text: &str) -> Result<Url, RefusedDestination> {
        if text.len() > MAX_URL_CHARS {
            return Err(RefusedDestination::NotAUrl);
        }
        let url = Url::parse(text.trim()).map_err(|_| RefusedDestination::NotAUrl)?;
        // Percent-encoding can make the stored form longer than what was sent.
        if url.as_str().len() > MAX_URL_CHARS || !matches!(url.scheme(), "https" | "http") || url.host().is_none() {
            return Err(RefusedDestination::NotAUrl);
        }
        if !url.username().is_empty() || url.password().is_some() || url.fragment().is_some() {
            return Err(RefusedDestination::Credentials);
        }
        if url.scheme() == "http" && !self.allow_private {
            return Err(RefusedDestination::NotHttps);
        }
        if let Some(ip) = literal_ip(&url) {
            self.check_address(url.scheme(), ip)?;
        } else if is_local_name(&url) {
            self.check_address(url.scheme(), IpAddr::V4(Ipv4Addr::LOCALHOST))?;
        }
        Ok(url)
    }

    /// Checks one address a delivery is about to connect to.
    pub fn check_address(self, scheme: &str, ip: IpAddr) -> Result<(), RefusedDestination> {
        match (is_internal(ip), self.allow_private) {
            (true, false) => Err(RefusedDestination::Internal(ip)),
            (false, _) if scheme != "https" => Err(RefusedDestination::PlainToPublic(ip)),
            _ => Ok(()),
        }
    }
}

/// The address a URL names literally (`https://10.0.0.1/`, `https://[::1]/`), if it does.
pub fn literal_ip(url: &Url) -> Option<IpAddr> {
    match url.host()? {
        Host::Ipv4(ip) => Some(IpAddr::V4(ip)),
        Host::Ipv6(ip) => Some(IpAddr::V6(ip)),
        Host::Domain(_) => None,
    }
}

/// `localhost` and its subdomains always name the loopback interface (RFC 6761).
fn is_local_name(url: &Url) -> bool {
    url.host_str().is_some_and(|h| {
        let h = h.trim_end_matches('.').to_ascii_lowercase();
        h == "localhost" || h.ends_with(".localhost")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRICT: AddressPolicy = AddressPolicy { allow_private: false };
    const OPEN: AddressPolicy = AddressPolicy { allow_private: true };

    #[test]
    fn internal_addresses_are_recognised() {
        for internal in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "198.18.0.1",
            "192.0.2.1",
            "240.0.0.1",
            "::1",
            "::",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "64:ff9b::a00:1",
            "2002:a00:1::",
            "2001:db8::1",
            "::127.0.0.1",
            "ff02::1",
            "192.0.0.8",
            "2001:0:4136:e378::1",
        ] {
            assert!(is_internal(internal.parse().expect(internal)), "{internal}");
        }
        for public in ["8.8.8.8", "1.1.1.1", "172.32.0.1", "100.128.0.1", "2606:4700::1111", "::ffff:8.8.8.8"] {
            assert!(!is_internal(public.parse().expect(public)), "{public}");
        }
    }

    #[test]
    fn urls_need_https_and_a_public_host_unless_private_is_allowed() {
        assert!(STRICT.check_url("https://hooks.example.com/tally?x=1").is_ok());
        assert_eq!(STRICT.check_url("http://hooks.example.com/"), Err(RefusedDestination::NotHttps));
        for internal in
            ["https://127.0.0.1/", "https://[::1]:8443/", "https://169.254.169.254/latest", "https://localhost/x"]
        {
            assert!(matches!(STRICT.check_url(internal), Err(RefusedDestination::Internal(_))), "{internal}");
        }
        // Integer and octal spellings of loopback are normalised by the URL parser, then refused.
        assert!(matches!(STRICT.check_url("https://2130706433/"), Err(RefusedDestination::Internal(_))));
        assert!(matches!(STRICT.check_url("https://0x7f.1/"), Err(RefusedDestination::Internal(_))));
        for bad in [
            "",
            "hooks.example.com",
            "ftp://example.com/",
            "https://",
            "https://user:pw@example.com/",
            "https://example.com/#frag",
            "mailto:a@example.com",
        ] {
            assert!(STRICT.check_url(bad).is_err(), "{bad}");
        }
        assert!(STRICT.check_url(&format!("https://example.com/{}", "a".repeat(2048))).is_err());
        assert!(STRICT.check_url(&format!("https://example.com/{}", "é".repeat(500))).is_err(), "6 000 once encoded");

        assert!(OPEN.check_url("http://127.0.0.1:9000/hook").is_ok());
        assert!(OPEN.check_url("http://localhost:9000/hook").is_ok());
        assert!(OPEN.check_url("https://10.0.0.5/hook").is_ok());
        assert!(matches!(OPEN.check_url("http://8.8.8.8/"), Err(RefusedDestination::PlainToPublic(_))));
    }

    #[test]
    fn resolved_addresses_are_checked_per_scheme() {
        let loopback: IpAddr = "127.0.0.1".parse().expect("ip");
        let public: IpAddr = "93.184.216.34".parse().expect("ip");
        assert_eq!(STRICT.check_address("https", loopback), Err(RefusedDestination::Internal(loopback)));
        assert_eq!(STRICT.check_address("https", public), Ok(()));
        assert_eq!(OPEN.check_address("http", loopback), Ok(()));
        assert_eq!(OPEN.check_address("http", public), Err(RefusedDestination::PlainToPublic(public)));
        assert_eq!(OPEN.check_address("https", public), Ok(()));
    }
}
