//! Shared reference data: countries, currencies, languages, timezones.
//! Public, read-only; codes in paths are case-insensitive.

use actix_web::{web, HttpResponse};
use postgres_toolkit::reference::queries as q;
use postgres_toolkit::reference::{CountryRow, CurrencyRow, LanguageRow, ReferenceFilter, TimezoneRow};
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::app::AppState;
use crate::http::conditional::{with_tag, EntityTag};
use crate::http::{ok, ApiError};

#[derive(Debug, Serialize, ToSchema)]
pub struct Country {
    /// ISO 3166-1 alpha-2.
    #[schema(example = "UA")]
    pub code: String,
    pub name: String,
    /// Africa, Americas, Asia, Europe, Oceania or Antarctica.
    pub region: String,
    pub currency_code: String,
    #[schema(example = "+380")]
    pub calling_code: String,
    /// Name in the country's main language.
    pub local_name: String,
    /// ISO 639-1 code of the main language.
    pub language_code: String,
    pub is_active: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Currency {
    #[schema(example = "UAH")]
    pub code: String,
    pub name: String,
    pub symbol: String,
    /// Minor units, 0-4.
    pub decimal_digits: i16,
    pub is_active: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Language {
    #[schema(example = "uk")]
    pub code: String,
    pub name: String,
    pub native_name: String,
    /// `LTR` or `RTL`.
    pub direction: String,
    pub is_active: bool,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct Timezone {
    #[schema(example = "Europe/Kyiv")]
    pub code: String,
    pub name: String,
    /// Current standard offset, e.g. `+02:00`.
    pub utc_offset: String,
    pub supports_dst: bool,
    pub region: String,
    pub is_active: bool,
}

impl From<CountryRow> for Country {
    fn from(r: CountryRow) -> Self {
        Self {
            code: r.code,
            name: r.name,
            region: r.region,
            currency_code: r.currency_code,
            calling_code: r.calling_code,
            local_name: r.local_name,
            language_code: r.language_code,
            is_active: r.is_active,
        }
    }
}

impl From<CurrencyRow> for Currency {
    fn from(r: CurrencyRow) -> Self {
        Self { code: r.code, name: r.name, symbol: r.symbol, decimal_digits: r.decimal_digits, is_active: r.is_active }
    }
}

impl From<LanguageRow> for Language {
    fn from(r: LanguageRow) -> Self {
        Self { code: r.code, name: r.name, native_name: r.native_name, direction: r.direction, is_active: r.is_active }
    }
}

impl From<TimezoneRow> for Timezone {
    fn from(r: TimezoneRow) -> Self {
        Self {
            code: r.code,
            name: r.name,
            utc_offset: r.utc_offset,
            supports_dst: r.supports_dst,
            region: r.region,
            is_active: r.is_active,
        }
    }
}

/// Document-only: `reference_data::COUNTRY_REGIONS` as the document lists them; the handlers
/// read a `String` and match it in any case.
#[derive(ToSchema)]
#[schema(description = "A country region (matched case-insensitively).")]
#[allow(dead_code)]
pub enum CountryRegionName {
    Africa,
    Americas,
    Asia,
    Europe,
    Oceania,
    Antarctica,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CountryQuery {
    pub is_active: Option<bool>,
    #[param(inline, value_type = Option<CountryRegionName>)]
    pub region: Option<String>,
    /// Case-insensitive substring of code or name.
    #[serde(default, deserialize_with = "crate::routes::query_params::bounded_search")]
    #[param(max_length = 200)]
    pub search: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ActiveSearchQuery {
    pub is_active: Option<bool>,
    /// Case-insensitive substring of code or name.
    #[serde(default, deserialize_with = "crate::routes::query_params::bounded_search")]
    #[param(max_length = 200)]
    pub search: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TimezoneQuery {
    /// Area of the zone id, e.g. `Europe`.
    pub region: Option<String>,
    pub is_active: Option<bool>,
    #[serde(default, deserialize_with = "crate::routes::query_params::bounded_search")]
    #[param(max_length = 200)]
    pub search: Option<String>,
}

pub fn configure(cfg: &mut web::ServiceConfig) {
    // Fixed segments (`active`, `region/…`) before the `{code}` catch-alls.
    cfg.service(web::resource("/countries").route(web::get().to(list_countries)))
        .service(web::resource("/countries/region/{region}").route(web::get().to(countries_by_region)))
        .service(web::resource("/countries/{code}").route(web::get().to(get_country)))
        .service(web::resource("/currencies").route(web::get().to(list_currencies)))
        .service(web::resource("/currencies/active").route(web::get().to(active_currencies)))
        .service(web::resource("/currencies/{code}").route(web::get().to(get_currency)))
        .service(web::resource("/languages").route(web::get().to(list_languages)))
        .service(web::resource("/languages/active").route(web::get().to(active_languages)))
        .service(web::resource("/languages/{code}").route(web::get().to(get_language)))
        .service(web::resource("/timezones").route(web::get().to(list_timezones)))
        .service(web::resource("/timezones/region/{region}").route(web::get().to(timezones_by_region)))
        // Zone ids contain slashes, so the code segment takes the rest of the path.
        .service(web::resource("/timezones/{code:.+}").route(web::get().to(get_timezone)));
}

fn non_empty(value: &Option<String>) -> Option<String> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned)
}

fn found<T, R: Into<T>>(row: Option<R>, what: &str, code: &str) -> Result<HttpResponse, ApiError>
where
    T: Serialize,
{
    match row {
        Some(row) => {
            let data: T = row.into();
            let tag = EntityTag::of_representation(&data);
            Ok(with_tag(ok(data), tag))
        }
        None => Err(ApiError::not_found(format!("no {what} with code '{code}'"))),
    }
}

fn to_list<R, T: From<R> + Serialize>(rows: Vec<R>) -> HttpResponse {
    ok(rows.into_iter().map(T::from).collect::<Vec<T>>())
}

/// Canonical spelling of a region name, or 404 for an unknown one.
fn known_region(raw: &str) -> Result<&'static str, ApiError> {
    reference_data::COUNTRY_REGIONS.iter().find(|r| r.eq_ignore_ascii_case(raw.trim())).copied().ok_or_else(|| {
        ApiError::not_found(format!("no region '{raw}'; regions are {}", reference_data::COUNTRY_REGIONS.join(", ")))
    })
}

#[utoipa::path(get, path = "/api/v1/shared/countries", tag = "reference data", params(CountryQuery),
    responses((status = 200, description = "Countries by name", body = [Country]), (status = 400, description = "Bad filter")))]
pub async fn list_countries(
    state: web::Data<AppState>,
    query: web::Query<CountryQuery>,
) -> Result<HttpResponse, ApiError> {
    let region = match non_empty(&query.region) {
        Some(region) => {
            Some(known_region(&region).map_err(|_| ApiError::field("region", "is not a known region"))?.to_owned())
        }
        None => None,
    };
    let filter = ReferenceFilter { is_active: query.is_active, region, search: non_empty(&query.search) };
    Ok(to_list::<_, Country>(q::list_countries(&state.pool, &filter).await?))
}

#[utoipa::path(get, path = "/api/v1/shared/countries/region/{region}", tag = "reference data",
    params(("region" = inline(CountryRegionName), Path, description = "A country region, any case")),
    responses((status = 200, body = [Country]), (status = 404, description = "Unknown region")))]
pub async fn countries_by_region(
    state: web::Data<AppState>,
    region: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let region = known_region(&region)?;
    let filter = ReferenceFilter { region: Some(region.to_owned()), ..ReferenceFilter::default() };
    Ok(to_list::<_, Country>(q::list_countries(&state.pool, &filter).await?))
}

#[utoipa::path(get, path = "/api/v1/shared/countries/{code}", tag = "reference data",
    params(("code" = String, Path, description = "ISO 3166-1 alpha-2, any case", pattern = "^[A-Za-z]{2}$")),
    responses((status = 200, body = Country), (status = 404, description = "Unknown code")))]
pub async fn get_country(state: web::Data<AppState>, code: web::Path<String>) -> Result<HttpResponse, ApiError> {
    found::<Country, _>(q::find_country(&state.pool, &code).await?, "country", &code)
}

#[utoipa::path(get, path = "/api/v1/shared/currencies", tag = "reference data", params(ActiveSearchQuery),
    responses((status = 200, body = [Currency])))]
pub async fn list_currencies(
    state: web::Data<AppState>,
    query: web::Query<ActiveSearchQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = ReferenceFilter { is_active: query.is_active, region: None, search: non_empty(&query.search) };
    Ok(to_list::<_, Currency>(q::list_currencies(&state.pool, &filter).await?))
}

#[utoipa::path(get, path = "/api/v1/shared/currencies/active", tag = "reference data",
    responses((status = 200, body = [Currency])))]
pub async fn active_currencies(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let filter = ReferenceFilter { is_active: Some(true), ..ReferenceFilter::default() };
    Ok(to_list::<_, Currency>(q::list_currencies(&state.pool, &filter).await?))
}

#[utoipa::path(get, path = "/api/v1/shared/currencies/{code}", tag = "reference data",
    params(("code" = String, Path, description = "ISO 4217, any case", pattern = "^[A-Za-z]{3}$")),
    responses((status = 200, body = Currency), (status = 404, description = "Unknown code")))]
pub async fn get_currency(state: web::Data<AppState>, code: web::Path<String>) -> Result<HttpResponse, ApiError> {
    found::<Currency, _>(q::find_currency(&state.pool, &code).await?, "currency", &code)
}

#[utoipa::path(get, path = "/api/v1/shared/languages", tag = "reference data", params(ActiveSearchQuery),
    responses((status = 200, body = [Language])))]
pub async fn list_languages(
    state: web::Data<AppState>,
    query: web::Query<ActiveSearchQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = ReferenceFilter { is_active: query.is_active, region: None, search: non_empty(&query.search) };
    Ok(to_list::<_, Language>(q::list_languages(&state.pool, &filter).await?))
}

#[utoipa::path(get, path = "/api/v1/shared/languages/active", tag = "reference data",
    responses((status = 200, body = [Language])))]
pub async fn active_languages(state: web::Data<AppState>) -> Result<HttpResponse, ApiError> {
    let filter = ReferenceFilter { is_active: Some(true), ..ReferenceFilter::default() };
    Ok(to_list::<_, Language>(q::list_languages(&state.pool, &filter).await?))
}

#[utoipa::path(get, path = "/api/v1/shared/languages/{code}", tag = "reference data",
    params(("code" = String, Path, description = "ISO 639-1, any case", pattern = "^[A-Za-z]{2}$")),
    responses((status = 200, body = Language), (status = 404, description = "Unknown code")))]
pub async fn get_language(state: web::Data<AppState>, code: web::Path<String>) -> Result<HttpResponse, ApiError> {
    found::<Language, _>(q::find_language(&state.pool, &code).await?, "language", &code)
}

#[utoipa::path(get, path = "/api/v1/shared/timezones", tag = "reference data", params(TimezoneQuery),
    responses((status = 200, body = [Timezone])))]
pub async fn list_timezones(
    state: web::Data<AppState>,
    query: web::Query<TimezoneQuery>,
) -> Result<HttpResponse, ApiError> {
    let filter = ReferenceFilter {
        is_active: query.is_active,
        region: non_empty(&query.region),
        search: non_empty(&query.search),
    };
    Ok(to_list::<_, Timezone>(q::list_timezones(&state.pool, &filter).await?))
}

#[utoipa::path(get, path = "/api/v1/shared/timezones/region/{region}", tag = "reference data",
    params(("region" = String, Path, description = "Area of the zone id, e.g. Europe, any case")),
    responses((status = 200, body = [Timezone]), (status = 404, description = "Unknown region")))]
pub async fn timezones_by_region(
    state: web::Data<AppState>,
    region: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let filter = ReferenceFilter { region: Some(region.trim().to_owned()), ..ReferenceFilter::default() };
    let rows = q::list_timezones(&state.pool, &filter).await?;
    if rows.is_empty() {
        return Err(ApiError::not_found(format!("no timezone region '{region}'")));
    }
    Ok(to_list::<_, Timezone>(rows))
}

#[utoipa::path(get, path = "/api/v1/shared/timezones/{code}", tag = "reference data",
    params(("code" = String, Path, description = "IANA id such as Europe/Kyiv, any case")),
    responses((status = 200, body = Timezone), (status = 404, description = "Unknown zone")))]
pub async fn get_timezone(state: web::Data<AppState>, code: web::Path<String>) -> Result<HttpResponse, ApiError> {
    found::<Timezone, _>(q::find_timezone(&state.pool, &code).await?, "timezone", &code)
}
