//! The reference data's currencies in memory, and a phone rule without a phone library.

use std::collections::BTreeMap;

use async_trait::async_trait;
use shared_kernel::CurrencyCode;

use super::InMemoryCrm;
use crate::ports::{Currencies, PhoneNumbers, RepoError};

/// Active from the start.
const CURRENCIES: [&str; 6] = ["EUR", "GBP", "JPY", "PLN", "UAH", "USD"];

/// The currencies known, and whether each is active.
#[derive(Debug)]
pub(super) struct KnownCurrencies(BTreeMap<CurrencyCode, bool>);

impl Default for KnownCurrencies {
    fn default() -> Self {
        Self(CURRENCIES.iter().filter_map(|c| CurrencyCode::parse(c).ok()).map(|c| (c, true)).collect())
    }
}

impl InMemoryCrm {
    /// Lists `code` in the reference data, active or not (EUR, GBP, JPY, PLN, UAH and USD are
    /// listed and active from the start).
    pub fn set_currency(&self, code: CurrencyCode, active: bool) {
        self.with(|state| state.currencies.0.insert(code, active));
    }
}

#[async_trait]
impl Currencies for InMemoryCrm {
    #[tracing::instrument(skip_all, fields(currency = %code.as_str()))]
    async fn is_active(&self, code: CurrencyCode) -> Result<bool, RepoError> {
        Ok(self.with(|state| state.currencies.0.get(&code).copied().unwrap_or(false)))
    }
}

/// E.164 without a phone library: `+` then 8 to 15 digits (spaces, dashes and brackets dropped);
/// it does not know which numbers each country code allows.
#[derive(Debug, Clone, Copy, Default)]
pub struct DigitPhoneNumbers;

impl PhoneNumbers for DigitPhoneNumbers {
    fn to_e164(&self, raw: &str) -> Option<String> {
        let digits: String = raw.trim().strip_prefix('+')?.chars().filter(|c| !" -()".contains(*c)).collect();
        ((8..=15).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit())).then(|| format!("+{digits}"))
    }
}
