//! Emails and passwords, parsed once at the edge.

use crate::IdentityError;

/// The one email rule of every context (docs/conventions.md, "Email addresses"), re-exported so
/// `identity_domain::Email` keeps working; a parse failure converts into [`IdentityError::InvalidEmail`].
pub use shared_kernel::email::{Email, InvalidEmail};

/// Whether `email` is a valid address under the shared rule ([`Email::parse`]).
pub fn is_plausible_email(email: &str) -> bool {
    Email::parse(email).is_ok()
}

/// A plain-text password that meets the policy: 8..=72 bytes (bcrypt reads
/// at most 72). It is never stored, logged or returned.
pub struct Password(String);

impl Password {
    /// The shortest password accepted, in bytes.
    pub const MIN_BYTES: usize = 8;
    /// The longest password accepted, in bytes: what bcrypt reads.
    pub const MAX_BYTES: usize = 72;

    /// Checks the length policy, counted in UTF-8 bytes and without trimming; a refusal is
    /// `Invalid { field }`, naming the request field the password came in (`password`,
    /// `new_password`).
    pub fn parse(field: &'static str, raw: &str) -> Result<Self, IdentityError> {
        if raw.len() < Self::MIN_BYTES {
            return Err(IdentityError::invalid(field, "must be at least 8 characters"));
        }
        if raw.len() > Self::MAX_BYTES {
            return Err(IdentityError::invalid(field, "must be at most 72 bytes"));
        }
        Ok(Self(raw.to_owned()))
    }

    /// The plain text, for the hasher only; `Debug` prints `Password(***)`.
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
    fn emails_follow_the_shared_rule() {
        assert_eq!(Email::parse("  Ann@Example.COM ").map(Email::into_string), Ok("ann@example.com".to_owned()));
        assert_eq!(IdentityError::from(InvalidEmail), IdentityError::InvalidEmail);
        assert!(is_plausible_email("josé@exämple.com") && !is_plausible_email("ann@example"));
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
