//! Cheap stand-ins for the use cases' other ports, for tests and examples: never for a server.

use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;

use crate::application::ports::{KeySecret, KeySecrets, PasswordHasher, PhoneNumbers};
use crate::credentials::Password;
use crate::IdentityError;

/// Stores a password as `plain:<password>`: no work, no secrecy. Verifying against no hash is false.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainPasswordHasher;

#[async_trait]
impl PasswordHasher for PlainPasswordHasher {
    async fn hash(&self, password: &Password) -> Result<String, IdentityError> {
        Ok(format!("plain:{}", password.expose()))
    }

    async fn verify(&self, password: &str, stored: Option<&str>) -> Result<bool, IdentityError> {
        Ok(stored.is_some_and(|s| s.strip_prefix("plain:") == Some(password)))
    }
}

/// Key secrets from a counter: `tly_` and 64 hex digits, the hash the key's bytes reversed.
#[derive(Debug, Default)]
pub struct CountingKeySecrets {
    next: AtomicU64,
}

impl KeySecrets for CountingKeySecrets {
    fn generate(&self) -> Result<KeySecret, IdentityError> {
        let n = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let key = format!("{}{n:064x}", crate::api_key::KEY_PREFIX);
        Ok(KeySecret { shown_prefix: key.chars().take(12).collect(), hash: key.bytes().rev().collect(), key })
    }
}

/// `+` and 8 to 15 digits (blanks, dashes and brackets dropped): a shape check, not the real rule.
#[derive(Debug, Clone, Copy, Default)]
pub struct DigitPhoneNumbers;

impl PhoneNumbers for DigitPhoneNumbers {
    fn normalise(&self, raw: &str) -> Result<String, IdentityError> {
        let raw = raw.trim();
        let digits: String = raw
            .strip_prefix('+')
            .ok_or(IdentityError::InvalidPhone)?
            .chars()
            .filter(|c| !" -()".contains(*c))
            .collect();
        if (8..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit()) {
            Ok(format!("+{digits}"))
        } else {
            Err(IdentityError::InvalidPhone)
        }
    }
}
