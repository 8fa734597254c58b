//! Access tokens whose signature this process has already checked. A client sends the same token on
//! every request for its fifteen minutes; checking its HMAC and parsing its claims again each time was
//! a third of a read's work. The key is the whole token text, so a hit means the very bytes that
//! verified before: a changed character anywhere is a miss and is checked in full. Only the signature
//! and the claims' parsing are remembered; expiry is checked on every use, and revocation, token
//! version, status and permissions are checked by the caller on every request as before.
//!
//! Bounded without bookkeeping per hit: two generations of at most `GENERATION` entries each; when the
//! young one fills it becomes the old one and the old one is dropped, so a token in use keeps getting
//! copied forward while one no longer sent falls out within two generations.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::tokens::Claims;

/// Entries per generation: ~600 bytes each (token text and claims), so at most ~2.5 MB in all.
const GENERATION: usize = 2048;

#[derive(Default)]
pub struct VerifiedTokens {
    generations: Mutex<Generations>,
}

#[derive(Default)]
struct Generations {
    young: HashMap<Box<str>, Arc<Claims>>,
    old: HashMap<Box<str>, Arc<Claims>>,
}

impl Generations {
    fn insert(&mut self, token: Box<str>, claims: Arc<Claims>) {
        if self.young.len() >= GENERATION {
            self.old = std::mem::take(&mut self.young);
        }
        self.young.insert(token, claims);
    }
}

impl VerifiedTokens {
    /// The claims of a token verified before, still unexpired at `now` (unix seconds).
    pub fn get(&self, token: &str, now: i64) -> Option<Arc<Claims>> {
        let mut generations = self.generations.lock().unwrap_or_else(PoisonError::into_inner);
        let claims = match generations.young.get(token) {
            Some(claims) => claims.clone(),
            None => {
                let (token, claims) = generations.old.remove_entry(token)?;
                generations.insert(token, claims.clone());
                claims
            }
        };
        // The same rule as the full check (no leeway): valid up to and including `exp`.
        (claims.exp >= now).then_some(claims)
    }

    /// Remembers a token whose signature and claims were just checked in full.
    pub fn remember(&self, token: &str, claims: Arc<Claims>) {
        let mut generations = self.generations.lock().unwrap_or_else(PoisonError::into_inner);
        generations.insert(token.into(), claims);
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        let generations = self.generations.lock().unwrap_or_else(PoisonError::into_inner);
        generations.young.len() + generations.old.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::tokens::TokenKind;
    use uuid::Uuid;

    fn claims(exp: i64) -> Arc<Claims> {
        Arc::new(Claims {
            sub: String::new(),
            user_id: Uuid::nil(),
            email: String::new(),
            roles: Vec::new(),
            exp,
            iat: 0,
            iss: "tally".into(),
            jti: Uuid::nil(),
            token_type: TokenKind::Access,
            tv: 0,
            fam: None,
        })
    }

    #[test]
    fn only_the_same_text_unexpired_is_found() {
        let tokens = VerifiedTokens::default();
        tokens.remember("a.b.c", claims(100));
        assert!(tokens.get("a.b.c", 100).is_some(), "valid up to and including exp");
        assert!(tokens.get("a.b.c", 101).is_none(), "expired");
        assert!(tokens.get("a.b.d", 50).is_none(), "another text");
        assert!(tokens.get("a.b.c ", 50).is_none(), "another text");
    }

    #[test]
    fn stays_bounded_and_keeps_what_is_in_use() {
        let tokens = VerifiedTokens::default();
        tokens.remember("kept", claims(i64::MAX));
        for n in 0..(5 * GENERATION) {
            tokens.remember(&format!("t{n}"), claims(i64::MAX));
            if n % (GENERATION / 2) == 0 {
                assert!(tokens.get("kept", 0).is_some(), "a token in use is carried forward");
            }
        }
        assert!(tokens.len() <= 2 * GENERATION);
        assert!(tokens.get("t0", 0).is_none(), "one not sent again falls out");
        assert!(tokens.get("kept", 0).is_some());
    }
}
