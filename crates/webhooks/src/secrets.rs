//! Endpoint signing secrets that are never stored: each is HMAC-SHA256(server key, "tally webhook
//! secret v1" ‖ endpoint id ‖ salt), and only the random salt is in the database. A dump alone
//! cannot sign; rotating a secret draws a new salt.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use uuid::Uuid;

use super::SigningSecret;

const LABEL: &[u8] = b"tally webhook secret v1";

/// Derives endpoint secrets from the server's key (`WEBHOOK_SECRET_KEY`, or one derived from
/// `JWT_SECRET`).
#[derive(Clone)]
pub struct SecretKeeper {
    key: Vec<u8>,
}

impl std::fmt::Debug for SecretKeeper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretKeeper(..)")
    }
}

impl SecretKeeper {
    pub fn new(server_key: &[u8]) -> Self {
        Self { key: server_key.to_vec() }
    }

    /// A fresh salt from the operating system's random source.
    pub fn new_salt() -> Result<[u8; 32], getrandom::Error> {
        let mut salt = [0u8; 32];
        getrandom::getrandom(&mut salt)?;
        Ok(salt)
    }

    /// The secret of endpoint `id` with `salt`.
    pub fn secret(&self, id: Uuid, salt: &[u8]) -> SigningSecret {
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.key) else {
            // HMAC takes a key of any length.
            unreachable!("HMAC accepts every key length")
        };
        mac.update(LABEL);
        mac.update(id.as_bytes());
        mac.update(salt);
        SigningSecret::from_bytes(mac.finalize().into_bytes().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_depend_on_the_key_the_endpoint_and_the_salt() {
        let keeper = SecretKeeper::new(b"server key one, thirty-two bytes!");
        let id = Uuid::from_u128(7);
        let salt = [1u8; 32];
        assert_eq!(keeper.secret(id, &salt), keeper.secret(id, &salt), "stable");
        assert_ne!(keeper.secret(id, &salt), keeper.secret(Uuid::from_u128(8), &salt));
        assert_ne!(keeper.secret(id, &salt), keeper.secret(id, &[2u8; 32]));
        assert_ne!(keeper.secret(id, &salt), SecretKeeper::new(b"another server key").secret(id, &salt));
        assert_ne!(SecretKeeper::new_salt().expect("salt"), SecretKeeper::new_salt().expect("salt"));
        assert_eq!(format!("{keeper:?}"), "SecretKeeper(..)");
    }
}
