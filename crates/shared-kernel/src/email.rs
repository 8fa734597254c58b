//! Email addresses: one rule for every context ("trimmed, lower-cased, must be a valid address;
//! otherwise 400 `INVALID_EMAIL`", docs/conventions.md, "Email addresses").
//!
//! Identity and customer management once had a parser each; they disagreed, and an address one accepted
//! at registration was refused by the other when the user became a customer. Both now use this type.
//!
//! The rule, after trimming and lower-casing (Unicode, so `JOSÉ@EXÄMPLE.COM` is `josé@exämple.com`):
//! - at most [`MAX_EMAIL_CHARS`] characters (the size of every email column), exactly one `@`;
//! - local part: 1..=64 bytes in the dot-atom form of RFC 5322 §3.2.3 extended to UTF-8 by RFC 6531:
//!   ASCII letters and digits, ``!#$%&'*+/=?^_`{|}~-``, any non-ASCII character that is neither a space
//!   nor a control character; dots only between other characters (not first, last or doubled);
//! - domain: two or more dot-separated labels of 1..=63 characters (ASCII letters, digits, inner hyphens,
//!   or non-ASCII characters for internationalised names); the last label is not all digits.
//!
//! So `a@b.c`, `josé@exämple.com` and `first.last+tag@sub.example.co.uk` are valid. Quoted local parts,
//! comments and IP-literal domains are refused: a registration form never produces them. Whether the
//! mailbox exists is not a question for a parser.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::{Classified, ErrorKind};

/// The longest address accepted, in characters.
pub const MAX_EMAIL_CHARS: usize = 255;
/// The longest local part, in bytes (RFC 5321 §4.5.3.1.1).
pub const MAX_LOCAL_BYTES: usize = 64;
/// The longest domain label, in characters.
pub const MAX_LABEL_CHARS: usize = 63;
const LOCAL_SPECIALS: &str = "!#$%&'*+/=?^_`{|}~-";

/// The address breaks the rule of this module: 400 `INVALID_EMAIL`, with `email` as the field in
/// `details`. It says nothing more, so a refusal never echoes what was sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
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

/// A valid, normalised (trimmed, lower-cased) email address. Serialized as its text; deserializing
/// parses, so a value of this type is always valid.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    /// Trims and lower-cases `raw`, then checks it against the rule of this module; the normalised
    /// text is what is stored and compared, so two spellings of one address are equal.
    pub fn parse(raw: &str) -> Result<Self, InvalidEmail> {
        let text = raw.trim().to_lowercase();
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

    /// The normalised address (trimmed, lower-case).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The normalised address, owned.
    pub fn into_string(self) -> String {
        self.0
    }

    /// The name customer management's own `Email` had; kept for its users.
    #[deprecated(note = "use `into_string`")]
    pub fn into_inner(self) -> String {
        self.0
    }
}

/// Neither a space nor a control character: what RFC 6531 admits beyond ASCII.
fn non_ascii_ok(c: char) -> bool {
    !c.is_ascii() && !c.is_whitespace() && !c.is_control()
}

fn valid_local(local: &str) -> bool {
    (1..=MAX_LOCAL_BYTES).contains(&local.len())
        && local.split('.').all(|atom| {
            !atom.is_empty()
                && atom.chars().all(|c| c.is_ascii_alphanumeric() || LOCAL_SPECIALS.contains(c) || non_ascii_ok(c))
        })
}

fn valid_domain(domain: &str) -> bool {
    let labels: Vec<&str> = domain.split('.').collect();
    let label_ok = |label: &&str| {
        (1..=MAX_LABEL_CHARS).contains(&label.chars().count())
            && !label.starts_with('-')
            && !label.ends_with('-')
            && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || non_ascii_ok(c))
    };
    let top_ok = labels.last().is_some_and(|top| !top.chars().all(|c| c.is_ascii_digit()));
    labels.len() >= 2 && labels.iter().all(label_ok) && top_ok
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
        assert_eq!(Email::parse("\tJOSÉ@EXÄMPLE.COM\n").map(Email::into_string), Ok("josé@exämple.com".to_owned()));
        assert_eq!(email.to_string(), "ada.lovelace+crm@example.com");
    }

    #[test]
    fn accepts_every_address_a_registration_may_bring() {
        for ok in [
            "a@b.c",
            "a@b.co",
            "josé@exämple.com",
            "first.last+tag@sub.example.co.uk",
            "first_last@sub.example.org",
            "x-y@my-host.io",
            "o'neil@example.ie",
            "user@123.example",
            "a@b.c0m",
            "用户@例子.广告",
            "!#$%&'*+/=?^_`{|}~-@example.com",
            "UPPER@EXAMPLE.COM",
        ] {
            assert!(Email::parse(ok).is_ok(), "{ok}");
        }
    }

    #[test]
    fn rejects_malformed_addresses() {
        for bad in [
            "",
            "   ",
            "plain",
            "@example.com",
            "a@",
            "a@b",
            "a@@b.com",
            "a@b@c.com",
            "a b@c.com",
            "a@exa mple.com",
            ".a@b.com",
            "a.@b.com",
            "a..b@c.com",
            "a@-b.com",
            "a@b-.com",
            "a@b..com",
            "a@.com",
            "a@b.com.",
            "a@b_c.com",
            "a@1.2.3.4",
            "\"quoted\"@example.com",
            "a(comment)@example.com",
            "<a>@example.com",
            "a,b@example.com",
            "a@[127.0.0.1]",
            "a\u{7}b@example.com",
        ] {
            assert_eq!(Email::parse(bad), Err(InvalidEmail), "{bad:?}");
        }
        assert_eq!((InvalidEmail.code(), InvalidEmail.kind()), ("INVALID_EMAIL", ErrorKind::Validation));
    }

    #[test]
    fn length_limits() {
        let domain = format!("{}.{}.{}.{}.com", "a".repeat(63), "b".repeat(63), "c".repeat(63), "d".repeat(47));
        let at_limit = format!("{}@{domain}", "e".repeat(255 - 1 - domain.len()));
        assert_eq!(at_limit.len(), 255);
        assert!(Email::parse(&at_limit).is_ok());
        assert_eq!(Email::parse(&format!("e{at_limit}")), Err(InvalidEmail));
        assert!(Email::parse(&format!("{}@example.com", "a".repeat(64))).is_ok());
        assert_eq!(Email::parse(&format!("{}@example.com", "a".repeat(65))), Err(InvalidEmail));
        assert_eq!(Email::parse(&format!("a@{}.com", "b".repeat(64))), Err(InvalidEmail));
    }

    #[test]
    fn serde_is_the_text_and_validates() {
        let email: Email = serde_json::from_str("\"A@B.com\"").expect("parses");
        assert_eq!(serde_json::to_string(&email).expect("serializes"), "\"a@b.com\"");
        assert!(serde_json::from_str::<Email>("\"nope\"").is_err());
    }
}
