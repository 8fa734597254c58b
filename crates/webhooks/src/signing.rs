//! Standard Webhooks signing (docs/webhooks.md): secrets `whsec_<base64>` and the
//! `webhook-signature` header `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the
//! secret's decoded bytes, so receivers verify with the Standard Webhooks libraries unchanged.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use hmac::{Hmac, Mac};
use sha2::Sha256;

pub const SECRET_PREFIX: &str = "whsec_";

/// A signing secret: 24 to 64 bytes (the spec asks for at least 24).
#[derive(Clone, PartialEq, Eq)]
pub struct SigningSecret(Vec<u8>);

impl std::fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningSecret(..)")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("a webhook secret is whsec_ and the base64 of 24 to 64 bytes")]
pub struct InvalidSecret;

impl SigningSecret {
    /// From 32 random bytes the caller drew from the operating system.
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes.to_vec())
    }

    pub fn parse(text: &str) -> Result<Self, InvalidSecret> {
        let encoded = text.strip_prefix(SECRET_PREFIX).ok_or(InvalidSecret)?;
        let bytes = STANDARD.decode(encoded).map_err(|_| InvalidSecret)?;
        if !(24..=64).contains(&bytes.len()) {
            return Err(InvalidSecret);
        }
        Ok(Self(bytes))
    }

    /// `whsec_<base64>`, as shown to the endpoint's owner.
    pub fn reveal(&self) -> String {
        format!("{SECRET_PREFIX}{}", STANDARD.encode(&self.0))
    }

    /// The `webhook-signature` header value for a message.
    pub fn sign(&self, message_id: &str, timestamp: i64, body: &[u8]) -> String {
        let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(&self.0) else {
            // HMAC takes a key of any length; this cannot happen.
            return String::new();
        };
        mac.update(message_id.as_bytes());
        mac.update(b".");
        mac.update(timestamp.to_string().as_bytes());
        mac.update(b".");
        mac.update(body);
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signs_the_specifications_test_vector() {
        let secret = SigningSecret::parse("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").expect("the spec's secret");
        let signature = secret.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_330, br#"{"test": 2432232314}"#);
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
        assert_ne!(secret.sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1_614_265_331, br#"{"test": 2432232314}"#), signature);
    }

    #[test]
    fn secrets_round_trip_and_are_checked() {
        let secret = SigningSecret::from_bytes([7; 32]);
        assert_eq!(SigningSecret::parse(&secret.reveal()), Ok(secret.clone()));
        assert!(secret.reveal().starts_with("whsec_"));
        assert_eq!(format!("{secret:?}"), "SigningSecret(..)", "never printed");
        for bad in ["", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_", "whsec_!!!", "whsec_c2hvcnQ="] {
            assert_eq!(SigningSecret::parse(bad), Err(InvalidSecret), "{bad}");
        }
    }
}
