//! Emails and passwords, parsed once at the edge.

use crate::IdentityError;

/// A trimmed, lower-cased address of a plausible shape, at most 255 bytes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Email(String);

impl Email {
    pub fn parse(raw: &str) -> Result<Self, IdentityError> {
        let email = raw.trim().to_lowercase();
        if email.len() > 255 || !is_plausible_email(&email) {
            return Err(IdentityError::InvalidEmail);
        }
        Ok(Self(email))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }
}

/// `local@domain.tld`: one `@`, no spaces or control characters, a dot in
/// the domain, no empty labels. Deliverability is not our question.
pub fn is_plausible_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else {
        return false;
    };
    let clean = |s: &str| !s.is_empty() && s.chars().all(|c| !c.is_whitespace() && !c.is_control() && c != '@');
    clean(local)
        && local.len() <= 64
        && clean(domain)
        && domain.contains('.')
        && domain.split('.').all(|label| !label.is_empty() && !label.starts_with('-') && !label.ends_with('-'))
        && !local.starts_with('.')
        && !local.ends_with('.')
        && !local.contains("..")
}

/// A plain-text password that meets the policy: 8..=72 bytes (bcrypt reads
/// at most 72). It is never stored, logged or returned.
pub struct Password(String);

impl Password {
    pub const MIN_BYTES: usize = 8;
    pub const MAX_BYTES: usize = 72;

    pub fn parse(field: &'static str, raw: &str) -> Result<Self, IdentityError> {
        if raw.len() < Self::MIN_BYTES {
            return Err(IdentityError::invalid(field, "must be at least 8 characters"));
        }
        if raw.len() > Self::MAX_BYTES {
            return Err(IdentityError::invalid(field, "must be at most 72 bytes"));
        }
        Ok(Self(raw.to_owned()))
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(***)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_are_normalised_and_checked() {
        assert_eq!(Email::parse("  Ann@Example.COM ").map(Email::into_string), Ok("ann@example.com".to_owned()));
        for bad in [
            "",
            "ann",
            "ann@",
            "@example.com",
            "ann@example",
            "ann@@example.com",
            "a n@example.com",
            "ann@exa mple.com",
            "ann@.com",
            ".ann@example.com",
            "an..n@example.com",
        ] {
            assert_eq!(Email::parse(bad), Err(IdentityError::InvalidEmail), "{bad}");
        }
        let long = format!("{}@example.com", "a".repeat(250));
        assert_eq!(Email::parse(&long), Err(IdentityError::InvalidEmail));
    }

    #[test]
    fn passwords_are_8_to_72_bytes() {
        assert!(Password::parse("password", "1234567").is_err());
        assert!(Password::parse("password", "12345678").is_ok());
        assert!(Password::parse("password", &"x".repeat(72)).is_ok());
        assert!(Password::parse("password", &"x".repeat(73)).is_err());
        // Bytes, not characters: 19 four-byte characters are 76 bytes.
        assert!(Password::parse("password", &"😀".repeat(19)).is_err());
        assert_eq!(format!("{:?}", Password::parse("p", "secret-value").ok()), "Some(Password(***))");
    }
}
