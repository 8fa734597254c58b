//! The reference data's currencies and countries in memory ([`Currencies`], [`Countries`]): a few
//! of each, known from the start, and setters to change them.

use std::collections::{BTreeMap, BTreeSet};

use async_trait::async_trait;
use shared_kernel::{CurrencyCode, StorageError};

use super::InMemoryWarehouse;
use crate::location::CountryCode;
use crate::repository::{Countries, Currencies};

/// Active from the start.
const CURRENCIES: [&str; 6] = ["EUR", "GBP", "JPY", "PLN", "UAH", "USD"];
/// Known from the start.
const COUNTRIES: [&str; 8] = ["CA", "DE", "FR", "GB", "JP", "PL", "UA", "US"];

/// The currencies known (and whether each is active) and the countries known.
#[derive(Debug)]
pub(super) struct ReferenceData {
    currencies: BTreeMap<CurrencyCode, bool>,
    countries: BTreeSet<CountryCode>,
}

impl Default for ReferenceData {
    fn default() -> Self {
        Self {
            currencies: CURRENCIES.iter().filter_map(|c| CurrencyCode::parse(c).ok()).map(|c| (c, true)).collect(),
            countries: COUNTRIES.iter().filter_map(|c| CountryCode::parse(c).ok()).collect(),
        }
    }
}

impl InMemoryWarehouse {
    /// Lists `code` in the reference data, active or not (EUR, GBP, JPY, PLN, UAH and USD are
    /// listed and active from the start).
    pub fn set_currency(&self, code: CurrencyCode, active: bool) {
        self.lock().reference.currencies.insert(code, active);
    }

    /// Lists `code` in the reference data (CA, DE, FR, GB, JP, PL, UA and US are from the start).
    pub fn add_country(&self, code: CountryCode) {
        self.lock().reference.countries.insert(code);
    }
}

#[async_trait]
impl Currencies for InMemoryWarehouse {
    #[tracing::instrument(skip_all, fields(currency = %code.as_str()))]
    async fn is_active(&self, code: CurrencyCode) -> Result<bool, StorageError> {
        Ok(self.lock().reference.currencies.get(&code).copied().unwrap_or(false))
    }
}

#[async_trait]
impl Countries for InMemoryWarehouse {
    #[tracing::instrument(skip_all, fields(country = %code))]
    async fn exists(&self, code: CountryCode) -> Result<bool, StorageError> {
        Ok(self.lock().reference.countries.contains(&code))
    }
}
