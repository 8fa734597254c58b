//! Read queries over the reference tables. The tables are small (hundreds
//! of rows) and indexed on every filter.

use diesel::prelude::*;
use diesel_async::RunQueryDsl;
use serde::Serialize;

use crate::db::DbError;
use crate::db::{contains_pattern, lower};
use crate::schema::{countries, currencies, languages, timezones};
use crate::DbPool;

#[derive(Debug, Clone, Queryable, Selectable, Serialize)]
#[diesel(table_name = countries)]
pub struct CountryRow {
    pub code: String,
    pub name: String,
    pub region: String,
    pub currency_code: String,
    pub calling_code: String,
    pub local_name: String,
    pub language_code: String,
    pub is_active: bool,
}

#[derive(Debug, Clone, Queryable, Selectable, Serialize)]
#[diesel(table_name = currencies)]
pub struct CurrencyRow {
    pub code: String,
    pub name: String,
    pub symbol: String,
    pub decimal_digits: i16,
    pub is_active: bool,
}

#[derive(Debug, Clone, Queryable, Selectable, Serialize)]
#[diesel(table_name = languages)]
pub struct LanguageRow {
    pub code: String,
    pub name: String,
    pub native_name: String,
    pub direction: String,
    pub is_active: bool,
}

#[derive(Debug, Clone, Queryable, Selectable, Serialize)]
#[diesel(table_name = timezones)]
pub struct TimezoneRow {
    pub code: String,
    pub name: String,
    pub utc_offset: String,
    pub supports_dst: bool,
    pub region: String,
    pub is_active: bool,
}

/// Filters shared by the reference lists; each list uses the ones it offers.
#[derive(Debug, Clone, Default)]
pub struct ReferenceFilter {
    pub is_active: Option<bool>,
    pub region: Option<String>,
    /// Case-insensitive substring of code or name.
    pub search: Option<String>,
}

pub async fn list_countries(pool: &DbPool, filter: &ReferenceFilter) -> Result<Vec<CountryRow>, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    let mut query = countries::table.select(CountryRow::as_select()).order(countries::name.asc()).into_boxed();
    if let Some(active) = filter.is_active {
        query = query.filter(countries::is_active.eq(active));
    }
    if let Some(region) = &filter.region {
        // Regions are few and capitalised; match them case-insensitively.
        query = query.filter(countries::region.ilike(region.replace(['%', '_', '\\'], "")));
    }
    if let Some(search) = &filter.search {
        let pattern = contains_pattern(search);
        query = query.filter(countries::code.ilike(pattern.clone()).or(countries::name.ilike(pattern)));
    }
    Ok(query.load(&mut conn).await?)
}

pub async fn find_country(pool: &DbPool, code: &str) -> Result<Option<CountryRow>, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    Ok(countries::table
        .find(code.trim().to_ascii_uppercase())
        .select(CountryRow::as_select())
        .first(&mut conn)
        .await
        .optional()?)
}

pub async fn list_currencies(pool: &DbPool, filter: &ReferenceFilter) -> Result<Vec<CurrencyRow>, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    let mut query = currencies::table.select(CurrencyRow::as_select()).order(currencies::code.asc()).into_boxed();
    if let Some(active) = filter.is_active {
        query = query.filter(currencies::is_active.eq(active));
    }
    if let Some(search) = &filter.search {
        let pattern = contains_pattern(search);
        query = query.filter(currencies::code.ilike(pattern.clone()).or(currencies::name.ilike(pattern)));
    }
    Ok(query.load(&mut conn).await?)
}

pub async fn find_currency(pool: &DbPool, code: &str) -> Result<Option<CurrencyRow>, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    Ok(currencies::table
        .find(code.trim().to_ascii_uppercase())
        .select(CurrencyRow::as_select())
        .first(&mut conn)
        .await
        .optional()?)
}

pub async fn list_languages(pool: &DbPool, filter: &ReferenceFilter) -> Result<Vec<LanguageRow>, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    let mut query = languages::table.select(LanguageRow::as_select()).order(languages::code.asc()).into_boxed();
    if let Some(active) = filter.is_active {
        query = query.filter(languages::is_active.eq(active));
    }
    if let Some(search) = &filter.search {
        let pattern = contains_pattern(search);
        query = query.filter(
            languages::code
                .ilike(pattern.clone())
                .or(languages::name.ilike(pattern.clone()))
                .or(languages::native_name.ilike(pattern)),
        );
    }
    Ok(query.load(&mut conn).await?)
}

pub async fn find_language(pool: &DbPool, code: &str) -> Result<Option<LanguageRow>, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    Ok(languages::table
        .find(code.trim().to_ascii_lowercase())
        .select(LanguageRow::as_select())
        .first(&mut conn)
        .await
        .optional()?)
}

pub async fn list_timezones(pool: &DbPool, filter: &ReferenceFilter) -> Result<Vec<TimezoneRow>, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    let mut query = timezones::table.select(TimezoneRow::as_select()).order(timezones::code.asc()).into_boxed();
    if let Some(active) = filter.is_active {
        query = query.filter(timezones::is_active.eq(active));
    }
    if let Some(region) = &filter.region {
        query = query.filter(timezones::region.ilike(region.replace(['%', '_', '\\'], "")));
    }
    if let Some(search) = &filter.search {
        let pattern = contains_pattern(search);
        query = query.filter(timezones::code.ilike(pattern.clone()).or(timezones::name.ilike(pattern)));
    }
    Ok(query.load(&mut conn).await?)
}

/// IANA identifiers are matched case-insensitively (`europe/kyiv` works),
/// through the `lower(code)` index.
pub async fn find_timezone(pool: &DbPool, code: &str) -> Result<Option<TimezoneRow>, DbError> {
    let mut conn = crate::db::checkout(pool).await?;
    Ok(timezones::table
        .filter(lower(timezones::code).eq(code.trim().to_lowercase()))
        .select(TimezoneRow::as_select())
        .first(&mut conn)
        .await
        .optional()?)
}
