//! Company aggregate: the business organisation a `company_id` names (decisions §6).
//!
//! Only shape rules live here: name 1..=255, website an http(s) URL of at most 500 characters,
//! industry at most 100. The URL check is structural (scheme, a host, no blanks), which is all a
//! link shown to a human needs; it does not resolve anything.

use shared_kernel::error::{Classified, ErrorKind};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::FieldError;
use crate::validate::{optional_text, required_text};

pub const MAX_COMPANY_NAME_CHARS: usize = 255;
pub const MAX_WEBSITE_CHARS: usize = 500;
pub const MAX_INDUSTRY_CHARS: usize = 100;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompanyError {
    /// `VALIDATION_ERROR` 400; `field` goes into `details`.
    #[error("{field}: {message}")]
    Invalid { field: &'static str, message: String },
}

impl CompanyError {
    /// The request field at fault, for the error's `details`.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            CompanyError::Invalid { field, .. } => Some(field),
        }
    }
}

impl Classified for CompanyError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Validation
    }

    fn code(&self) -> &'static str {
        "VALIDATION_ERROR"
    }
}

impl From<FieldError> for CompanyError {
    fn from(e: FieldError) -> Self {
        CompanyError::Invalid { field: e.field, message: e.message }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Company {
    pub id: Uuid,
    pub name: String,
    pub website: Option<String>,
    pub industry: Option<String>,
    pub created_at: OffsetDateTime,
    pub updated_at: OffsetDateTime,
    pub deleted_at: Option<OffsetDateTime>,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

#[derive(Debug, Clone, Default)]
pub struct NewCompany {
    pub name: String,
    pub website: Option<String>,
    pub industry: Option<String>,
}

/// `PUT /companies/:id`: absent fields stay; `Some(None)` clears an optional one.
#[derive(Debug, Clone, Default)]
pub struct CompanyChanges {
    pub name: Option<String>,
    pub website: Option<Option<String>>,
    pub industry: Option<Option<String>>,
}

fn website(raw: Option<String>) -> Result<Option<String>, FieldError> {
    let Some(url) = optional_text("website", raw, MAX_WEBSITE_CHARS)? else {
        return Ok(None);
    };
    if is_http_url(&url) {
        Ok(Some(url))
    } else {
        Err(FieldError::new("website", "must be an http or https URL"))
    }
}

/// `http(s)://host[:port][/path][?query][#fragment]`, no whitespace or control characters.
fn is_http_url(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    let Some(rest) = lower.strip_prefix("https://").or_else(|| lower.strip_prefix("http://")) else {
        return false;
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host_port = authority.rsplit('@').next().unwrap_or_default();
    let (host_ok, port) = if let Some(bracketed) = host_port.strip_prefix('[') {
        // IPv6 literal: `[hex:colons]` with an optional `:port` after the bracket.
        let Some((ip, after)) = bracketed.split_once(']') else {
            return false;
        };
        let port = match after {
            "" => None,
            _ => match after.strip_prefix(':') {
                Some(port) => Some(port),
                None => return false,
            },
        };
        (!ip.is_empty() && ip.chars().all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.'), port)
    } else {
        let (host, port) = match host_port.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_port, None),
        };
        let host_ok = !host.is_empty()
            && !host.starts_with('.')
            && !host.ends_with('.')
            && !host.contains("..")
            && host.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '.');
        (host_ok, port)
    };
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.chars().all(|c| c.is_ascii_digit()));
    host_ok && port_ok
}

impl Company {
    pub fn new(input: NewCompany, now: OffsetDateTime) -> Result<Company, CompanyError> {
        Ok(Company {
            version: 1,
            id: shared_kernel::new_id(),
            name: required_text("name", &input.name, MAX_COMPANY_NAME_CHARS)?,
            website: website(input.website)?,
            industry: optional_text("industry", input.industry, MAX_INDUSTRY_CHARS)?,
            created_at: now,
            updated_at: now,
            deleted_at: None,
        })
    }

    pub fn update(&self, changes: CompanyChanges, now: OffsetDateTime) -> Result<Company, CompanyError> {
        let mut next = self.clone();
        if let Some(name) = changes.name {
            next.name = required_text("name", &name, MAX_COMPANY_NAME_CHARS)?;
        }
        if let Some(raw) = changes.website {
            next.website = website(raw)?;
        }
        if let Some(raw) = changes.industry {
            next.industry = optional_text("industry", raw, MAX_INDUSTRY_CHARS)?;
        }
        next.updated_at = now;
        Ok(next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    const NOW: OffsetDateTime = datetime!(2026-03-01 10:00 UTC);

    fn input() -> NewCompany {
        NewCompany {
            name: " Acme ".into(),
            website: Some("https://acme.example".into()),
            industry: Some("Retail".into()),
        }
    }

    fn field(input: NewCompany) -> Option<&'static str> {
        Company::new(input, NOW).expect_err("rejected").field()
    }

    #[test]
    fn creates_trimmed() {
        let c = Company::new(input(), NOW).expect("valid");
        assert_eq!(
            (c.name.as_str(), c.website.as_deref(), c.industry.as_deref()),
            ("Acme", Some("https://acme.example"), Some("Retail"))
        );
        assert_eq!((c.created_at, c.updated_at, c.deleted_at), (NOW, NOW, None));
    }

    #[test]
    fn limits() {
        assert!(Company::new(NewCompany { name: "n".repeat(255), ..input() }, NOW).is_ok());
        assert_eq!(field(NewCompany { name: "n".repeat(256), ..input() }), Some("name"));
        assert_eq!(field(NewCompany { name: "".into(), ..input() }), Some("name"));
        assert!(Company::new(NewCompany { industry: Some("i".repeat(100)), ..input() }, NOW).is_ok());
        assert_eq!(field(NewCompany { industry: Some("i".repeat(101)), ..input() }), Some("industry"));
        let prefix = "https://acme.example/";
        let at_limit = format!("{prefix}{}", "p".repeat(500 - prefix.len()));
        assert!(Company::new(NewCompany { website: Some(at_limit.clone()), ..input() }, NOW).is_ok());
        assert_eq!(field(NewCompany { website: Some(format!("{at_limit}p")), ..input() }), Some("website"));
    }

    #[test]
    fn website_must_be_http_or_https() {
        for ok in [
            "http://acme.example",
            "HTTPS://Acme.Example/path?q=1#top",
            "https://localhost:8080/",
            "https://user@acme.example",
            "https://[::1]:443/x",
            "https://[::1]",
        ] {
            assert!(is_http_url(ok), "{ok}");
        }
        for bad in [
            "acme.example",
            "ftp://acme.example",
            "https://",
            "https:///path",
            "https://acme .example",
            "https://acme.example:port",
            "https://acme..example",
            "https://[::1",
            "https://[::1]x",
            "https://a:b:c",
            "javascript:alert(1)",
        ] {
            assert!(!is_http_url(bad), "{bad}");
        }
        assert_eq!(field(NewCompany { website: Some("ftp://x.example".into()), ..input() }), Some("website"));
        let none = Company::new(NewCompany { website: Some("  ".into()), industry: None, ..input() }, NOW);
        assert_eq!(none.expect("blank means none").website, None);
    }

    #[test]
    fn updates_and_clears() {
        let c = Company::new(input(), NOW).expect("valid");
        let later = datetime!(2026-03-02 10:00 UTC);
        let changes = CompanyChanges { name: Some("Acme Ltd".into()), website: Some(None), industry: None };
        let updated = c.update(changes, later).expect("valid");
        assert_eq!(
            (updated.name.as_str(), updated.website, updated.industry.as_deref()),
            ("Acme Ltd", None, Some("Retail"))
        );
        assert_eq!(updated.updated_at, later);
        let bad = c.update(CompanyChanges { website: Some(Some("nope".into())), ..Default::default() }, later);
        assert_eq!(bad.expect_err("invalid").field(), Some("website"));
    }
}
