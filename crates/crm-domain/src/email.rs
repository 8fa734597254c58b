//! Email addresses, parsed once at the edge: trimmed, lower-cased, well-formed, at most 255 characters.
//!
//! Uniqueness is case-insensitive, so the stored form is the lower-cased one. The check is deliberately
//! structural (ASCII local part and dotted domain); whether the mailbox exists is not our business.

use serde::{Deserialize, Serialize};
use shared_kernel::error::{Classified, ErrorKind};
use std::fmt;

pub const MAX_EMAIL_CHARS: usize = 255;
const MAX_LOCAL_CHARS: usize = 64;
const MAX_LABEL_CHARS: usize = 63;
const LOCAL_SPECIALS: &str = "!#$%&'*+/=?^_`{|}~.-";

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("email is not a valid address")]
pub struct InvalidEmail;

impl Classified for InvalidEmail {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Validation
    }

    fn code(&self) -> &'static str {
        "INVALID_EMAIL"
    }
}

/// A valid, normalised email address.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Self, InvalidEmail> {
        let text = raw.trim().to_ascii_lowercase();
        if text.chars().count() > MAX_EMAIL_CHARS {
            return Err(InvalidEmail);
        }
        let (local, domain) = text.split_once('@').ok_or(InvalidEmail)?;
        if valid_local(local) && valid_domain(domain) {
            Ok(Self(text))
        } else {
            Err(InvalidEmail)
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_inner(self) -> String {
        self.0
    }
}

fn valid_local(local: &str) -> bool {
    (1..=MAX_LOCAL_CHARS).contains(&local.len())
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
        && local.chars().all(|c| c.is_ascii_alphanumeric() || LOCAL_SPECIALS.contains(c))
}

/// At least two labels; letters, digits and inner hyphens; a top-level label of two or more letters.
fn valid_domain(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    let label_ok = |label: &&str| {
        (1..=MAX_LABEL_CHARS).contains(&label.len())
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
    };
    let tld_ok = labels.last().is_some_and(|tld| tld.len() >= 2 && tld.chars().all(|c| c.is_ascii_alphabetic()));
    labels.len() >= 2 && labels.iter().all(label_ok) && tld_ok
}

impl fmt::Display for Email {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Email {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl<'de> Deserialize<'de> for Email {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Self::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_and_lower_cases() {
        let email = Email::parse("  Ada.Lovelace+crm@Example.COM ").expect("valid");
        assert_eq!(email.as_str(), "ada.lovelace+crm@example.com");
    }

    #[test]
    fn accepts_ordinary_addresses() {
        for ok in ["a@b.co", "first_last@sub.example.org", "x-y@my-host.io", "o'neil@example.ie"] {
            assert!(Email::parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn rejects_malformed_addresses() {
        for bad in [
            "",
            "plain",
            "@example.com",
            "a@",
            "a@b",
            "a@@b.com",
            "a@b@c.com",
            "a b@c.com",
            ".a@b.com",
            "a.@b.com",
            "a..b@c.com",
            "a@-b.com",
            "a@b-.com",
            "a@b..com",
            "a@b.c",
            "a@b.c0m",
            "ü@b.com",
            "a@exämple.com",
        ] {
            assert_eq!(Email::parse(bad), Err(InvalidEmail), "{bad}");
        }
        assert_eq!(InvalidEmail.code(), "INVALID_EMAIL");
    }

    #[test]
    fn length_limit_is_255_characters() {
        let domain = format!("{}.{}.{}.{}.com", "a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(47));
        let at_limit = format!("{}@{domain}", "e".repeat(255 - 1 - domain.len()));
        assert_eq!(at_limit.len(), 255);
        assert!(Email::parse(&at_limit).is_ok());
        let over = format!("e{at_limit}");
        assert_eq!(Email::parse(&over), Err(InvalidEmail));
    }

    #[test]
    fn serde_round_trip_validates() {
        let email: Email = serde_json::from_str("\"A@B.com\"").expect("parses");
        assert_eq!(serde_json::to_string(&email).expect("serializes"), "\"a@b.com\"");
        assert!(serde_json::from_str::<Email>("\"nope\"").is_err());
    }
}
