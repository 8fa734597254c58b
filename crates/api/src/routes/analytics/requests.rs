//! Query parameters of the analytics endpoints: each bad value is 400 `VALIDATION_ERROR` naming it.

use analytics_postgres::{Granularity, LifecyclePeriod, SeriesRange, SeriesRangeError};
use serde::Deserialize;
use time::{Date, OffsetDateTime};
use utoipa::{IntoParams, ToSchema};

use crate::http::ApiError;
use crate::routes::query_params::{date, present};

/// Document-only: `LifecyclePeriod` as the document lists it; `LifecyclePeriod::parse` also takes
/// any case.
#[derive(ToSchema)]
#[schema(description = "A period (matched case-insensitively).", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum LifecyclePeriodName {
    Week,
    Month,
    Quarter,
    Year,
}

/// Document-only: `Granularity` as the document lists it; `Granularity::parse` also takes any case.
#[derive(ToSchema)]
#[schema(description = "A bucket size (matched case-insensitively).", rename_all = "snake_case")]
#[allow(dead_code)]
pub enum GranularityName {
    Day,
    Week,
    Month,
}

/// Taken as text so a bad value gets a message naming the parameter, not a generic query error.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct LifecycleQuery {
    /// `month` by default: the window is the last such period up to now.
    #[param(inline, value_type = Option<LifecyclePeriodName>)]
    pub period: Option<String>,
}

impl LifecycleQuery {
    pub fn period(&self) -> Result<LifecyclePeriod, ApiError> {
        match present(&self.period) {
            None => Ok(LifecyclePeriod::default()),
            Some(text) => LifecyclePeriod::parse(text)
                .ok_or_else(|| ApiError::field("period", "must be one of: week, month, quarter, year")),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct PerformanceQuery {
    /// How many reps, 1..=100 (default 10).
    #[param(value_type = Option<i64>, minimum = 1, maximum = 100)]
    pub top_n: Option<String>,
}

impl PerformanceQuery {
    pub const DEFAULT_TOP_N: i64 = 10;

    pub fn top_n(&self) -> Result<i64, ApiError> {
        match present(&self.top_n) {
            None => Ok(Self::DEFAULT_TOP_N),
            Some(text) => text
                .parse::<i64>()
                .ok()
                .filter(|n| (1..=100).contains(n))
                .ok_or_else(|| ApiError::field("top_n", "must be an integer from 1 to 100")),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct SeriesQuery {
    /// `YYYY-MM-DD` (years 1900..=2200), not after `end_date`; default: 29 days, 11 weeks or 11
    /// months before the bucket of `end_date`, so the series has 30 days, 12 ISO weeks or 12
    /// calendar months. At most 1000 buckets.
    #[param(format = Date)]
    pub start_date: Option<String>,
    /// `YYYY-MM-DD` (years 1900..=2200); default today (UTC).
    #[param(format = Date)]
    pub end_date: Option<String>,
    /// `month` by default; weeks are ISO weeks.
    #[param(inline, value_type = Option<GranularityName>)]
    pub granularity: Option<String>,
}

impl SeriesQuery {
    pub fn range(&self, today: Date) -> Result<SeriesRange, ApiError> {
        let granularity = match present(&self.granularity) {
            None => Granularity::default(),
            Some(text) => Granularity::parse(text)
                .ok_or_else(|| ApiError::field("granularity", "must be one of: day, week, month"))?,
        };
        let end = date("end_date", &self.end_date)?.unwrap_or(today);
        let start = match date("start_date", &self.start_date)? {
            Some(start) => start,
            None => granularity
                .default_start(end)
                .ok_or_else(|| ApiError::field("end_date", SeriesRangeError::OutOfRange.to_string()))?,
        };
        SeriesRange::new(start, end, granularity).map_err(|error| match error {
            SeriesRangeError::StartAfterEnd | SeriesRangeError::OutOfRange => {
                ApiError::field("start_date", error.to_string())
            }
            SeriesRangeError::TooManyBuckets(_) => ApiError::field("granularity", error.to_string()),
        })
    }
}

pub fn today_utc() -> Date {
    OffsetDateTime::now_utc().date()
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    fn series(start: Option<&str>, end: Option<&str>, granularity: &str) -> SeriesQuery {
        SeriesQuery {
            start_date: start.map(str::to_owned),
            end_date: end.map(str::to_owned),
            granularity: Some(granularity.to_owned()),
        }
    }

    fn field_of(result: Result<SeriesRange, ApiError>) -> String {
        let error = result.expect_err("must fail");
        assert_eq!((error.status.as_u16(), error.code), (400, "VALIDATION_ERROR"));
        error.details.and_then(|d| d.into_keys().next()).unwrap_or_default()
    }

    #[test]
    fn absurd_dates_are_400s_naming_the_parameter() {
        let today = date!(2026 - 03 - 01);
        for granularity in ["day", "week", "month"] {
            for bad in ["-9999-01-05", "0000-01-01", "1899-12-31", "2201-01-01", "99999-01-01"] {
                assert_eq!(field_of(series(None, Some(bad), granularity).range(today)), "end_date", "{bad}");
                assert_eq!(field_of(series(Some(bad), None, granularity).range(today)), "start_date", "{bad}");
            }
            // The bounds themselves are accepted, with or without a start.
            assert!(series(None, Some("1900-01-01"), granularity).range(today).is_ok());
            assert!(series(None, Some("2200-12-31"), granularity).range(today).is_ok());
            assert!(series(Some("1900-01-01"), Some("1900-01-31"), granularity).range(today).is_ok());
        }
        let range = series(None, Some("2026-01-05"), "day").range(today).expect("valid");
        assert_eq!((range.start, range.end), (date!(2025 - 12 - 07), date!(2026 - 01 - 05)));
    }
}
