//! Company aggregate: the business organisation a `company_id` names (docs/customer-management.md).
//!
//! Only shape rules live here: name 1..=255, website an http(s) URL of at most 500 characters,
//! industry at most 100. The URL check is structural (scheme, a host, no blanks), which is all a
//! link shown to a human needs; it does not resolve anything.

use shared_kernel::error::{Classified, ErrorKind};
use time::OffsetDateTime;
use uuid::Uuid;

use crate::error::FieldError;
use crate::validate::{optional_text, required_text};

/// The longest company name, in characters after trimming.
pub const MAX_COMPANY_NAME_CHARS: usize = 255;
/// The longest website URL, in characters.
pub const MAX_WEBSITE_CHARS: usize = 500;
/// The longest industry text, in characters.
pub const MAX_INDUSTRY_CHARS: usize = 100;

/// Why a company operation was refused: only shape rules can fail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CompanyError {
    /// `VALIDATION_ERROR` 400; `field` goes into `details`.
    #[error("{field}: {message}")]
    Invalid {
        /// The request field at fault (`name`, `website`, `industry`).
        field: &'static str,
        /// The rule it broke.
        message: String,
    },
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

/// A company as stored. Build one with [`Company::new`]; adapters fill the fields when loading rows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Company {
    /// The company's identity, what customers' and interactions' `company_id` name.
    pub id: Uuid,
    /// The company's name, trimmed, 1..=[`MAX_COMPANY_NAME_CHARS`] characters.
    pub name: String,
    /// Its site: an http(s) URL of at most [`MAX_WEBSITE_CHARS`] characters.
    pub website: Option<String>,
    /// Its line of business, free text of at most [`MAX_INDUSTRY_CHARS`] characters.
    pub industry: Option<String>,
    /// When the company was created.
    pub created_at: OffsetDateTime,
    /// When the company last changed.
    pub updated_at: OffsetDateTime,
    /// When the company was soft-deleted; repositories never return deleted companies.
    pub deleted_at: Option<OffsetDateTime>,
    /// The stored row's version: 1 when created, bumped by the database on every update
    /// (the source of the resource's ETag).
    pub version: i64,
}

/// Raw creation input; [`Company::new`] validates it. Blank optional texts mean none.
#[derive(Debug, Clone, Default)]
pub struct NewCompany {
    /// The name, 1..=[`MAX_COMPANY_NAME_CHARS`] characters after trimming.
    pub name: String,
    /// An http(s) URL, at most [`MAX_WEBSITE_CHARS`] characters.
    pub website: Option<String>,
    /// At most [`MAX_INDUSTRY_CHARS`] characters.
    pub industry: Option<String>,
}

/// `PUT /companies/:id`: absent fields stay; `Some(None)` clears an optional one.
#[derive(Debug, Clone, Default)]
pub struct CompanyChanges {
    /// A new name.
    pub name: Option<String>,
    /// A new website (`Some(Some)`), or none (`Some(None)`).
    pub website: Option<Option<String>>,
    /// A new industry (`Some(Some)`), or none (`Some(None)`).
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
    /// Validates `input` into a new company (fresh id, version 1, created and updated at `now`);
    /// `Invalid` names the first field that breaks its rule.
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

    /// The company with the given fields changed and `updated_at = now`; save with
    /// `CompanyRepository::update`.
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
