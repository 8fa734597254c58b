//! The time vocabulary of analytics: lifecycle windows and revenue-series buckets.

use time::{Date, Duration, Month};

/// The most buckets one revenue series may have (docs/analytics.md).
pub const MAX_BUCKETS: i64 = 1000;

/// `customers/lifecycle?period=`: the window is the last such period up to now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LifecyclePeriod {
    Week,
    #[default]
    Month,
    Quarter,
    Year,
}

impl LifecyclePeriod {
    pub const NAMES: [&'static str; 4] = ["week", "month", "quarter", "year"];

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "week" => Some(Self::Week),
            "month" => Some(Self::Month),
            "quarter" => Some(Self::Quarter),
            "year" => Some(Self::Year),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// The window's length as a PostgreSQL interval (calendar months, so "month" is not 30 days).
    pub(crate) fn interval(self) -> &'static str {
        match self {
            Self::Week => "7 days",
            Self::Month => "1 month",
            Self::Quarter => "3 months",
            Self::Year => "1 year",
        }
    }
}

/// `revenue/time-series?granularity=`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Granularity {
    Day,
    Week,
    #[default]
    Month,
}

impl Granularity {
    pub const NAMES: [&'static str; 3] = ["day", "week", "month"];

    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "day" => Some(Self::Day),
            "week" => Some(Self::Week),
            "month" => Some(Self::Month),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        Self::NAMES[self as usize]
    }

    /// `to_char` pattern of the bucket label: `2026-11-22`, `2026-W47` (ISO week), `2026-11`.
    pub(crate) fn label_format(self) -> &'static str {
        match self {
            Self::Day => "YYYY-MM-DD",
            Self::Week => "IYYY-\"W\"IW",
            Self::Month => "YYYY-MM",
        }
    }

    /// First day of the bucket holding `date` (weeks start on Monday, as ISO weeks do); `None` when
    /// that day is before the first date `time` can hold. Every step is checked: no input panics.
    pub fn bucket_start(self, date: Date) -> Option<Date> {
        match self {
            Self::Day => Some(date),
            Self::Week => date.checked_sub(Duration::days(i64::from(date.weekday().number_days_from_monday()))),
            Self::Month => date.replace_day(1).ok(),
        }
    }

    /// How many buckets `[start, end]` spans; 0 when `start` is after `end`; `None` when a bucket
    /// boundary is out of `time`'s range.
    pub fn bucket_count(self, start: Date, end: Date) -> Option<i64> {
        if start > end {
            return Some(0);
        }
        match self {
            // `Date - Date` is exact over the whole range (at most ~7.3 million days).
            Self::Day => (end - start).whole_days().checked_add(1),
            Self::Week => {
                let days = (self.bucket_start(end)? - self.bucket_start(start)?).whole_days();
                (days / 7).checked_add(1)
            }
            Self::Month => month_index(end).checked_sub(month_index(start))?.checked_add(1),
        }
    }

    /// Default start when the caller gives none: 30 days, 12 ISO weeks or 12 calendar months
    /// ending with the bucket of `end`, each starting on a bucket boundary; `None` when that start is
    /// out of `time`'s range.
    pub fn default_start(self, end: Date) -> Option<Date> {
        match self {
            Self::Day => end.checked_sub(Duration::days(29)),
            Self::Week => self.bucket_start(end)?.checked_sub(Duration::weeks(11)),
            Self::Month => first_of_month(month_index(end).checked_sub(11)?),
        }
    }
}

fn month_index(date: Date) -> i64 {
    i64::from(date.year()) * 12 + i64::from(u8::from(date.month())) - 1
}

fn first_of_month(index: i64) -> Option<Date> {
    let year = i32::try_from(index.div_euclid(12)).ok()?;
    let month = Month::try_from(u8::try_from(index.rem_euclid(12) + 1).ok()?).ok()?;
    Date::from_calendar_date(year, month, 1).ok()
}

/// A validated series request: `start <= end` and at most [`MAX_BUCKETS`] buckets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SeriesRange {
    pub start: Date,
    pub end: Date,
    pub granularity: Granularity,
}

/// Why a series range was refused (both are 400s at the edge).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SeriesRangeError {
    #[error("start_date must not be after end_date")]
    StartAfterEnd,
    #[error("the range spans {0} buckets; at most 1000 are allowed")]
    TooManyBuckets(i64),
    #[error("the range is out of the supported dates")]
    OutOfRange,
}

impl SeriesRange {
    pub fn new(start: Date, end: Date, granularity: Granularity) -> Result<Self, SeriesRangeError> {
        if start > end {
            return Err(SeriesRangeError::StartAfterEnd);
        }
        let buckets = granularity.bucket_count(start, end).ok_or(SeriesRangeError::OutOfRange)?;
        if buckets > MAX_BUCKETS {
            return Err(SeriesRangeError::TooManyBuckets(buckets));
        }
        Ok(Self { start, end, granularity })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::date;

    #[test]
    fn counts_buckets() {
        let g = Granularity::Day;
        assert_eq!(g.bucket_count(date!(2026 - 11 - 01), date!(2026 - 11 - 01)), Some(1));
        assert_eq!(g.bucket_count(date!(2026 - 11 - 01), date!(2026 - 11 - 30)), Some(30));
        assert_eq!(g.bucket_count(date!(2026 - 11 - 02), date!(2026 - 11 - 01)), Some(0));
        // Sunday 2026-11-22 and Monday 2026-11-23 are in different ISO weeks.
        assert_eq!(Granularity::Week.bucket_count(date!(2026 - 11 - 22), date!(2026 - 11 - 23)), Some(2));
        assert_eq!(Granularity::Week.bucket_count(date!(2026 - 11 - 16), date!(2026 - 11 - 22)), Some(1));
        assert_eq!(Granularity::Month.bucket_count(date!(2025 - 12 - 31), date!(2026 - 01 - 01)), Some(2));
        assert_eq!(Granularity::Month.bucket_count(date!(2026 - 01 - 15), date!(2026 - 12 - 01)), Some(12));
    }

    #[test]
    fn default_starts_fall_on_bucket_boundaries() {
        let end = date!(2026 - 11 - 22);
        assert_eq!(Granularity::Day.default_start(end), Some(date!(2026 - 10 - 24)));
        assert_eq!(Granularity::Week.default_start(end), Some(date!(2026 - 08 - 31)));
        assert_eq!(Granularity::Month.default_start(end), Some(date!(2025 - 12 - 01)));
        assert_eq!(Granularity::Month.bucket_count(date!(2025 - 12 - 01), end), Some(12));
        assert_eq!(Granularity::Week.bucket_count(date!(2026 - 08 - 31), end), Some(12));
    }

    #[test]
    fn ranges_are_bounded() {
        let day = Granularity::Day;
        assert!(SeriesRange::new(date!(2026 - 01 - 01), date!(2028 - 09 - 26), day).is_ok());
        assert_eq!(
            SeriesRange::new(date!(2026 - 01 - 01), date!(2028 - 09 - 27), day),
            Err(SeriesRangeError::TooManyBuckets(1001))
        );
        assert_eq!(
            SeriesRange::new(date!(2026 - 01 - 02), date!(2026 - 01 - 01), day),
            Err(SeriesRangeError::StartAfterEnd)
        );
    }

    #[test]
    fn extreme_dates_never_panic() {
        let all = [Granularity::Day, Granularity::Week, Granularity::Month];
        for g in all {
            let near_min = Date::from_calendar_date(-9999, Month::January, 5).expect("valid");
            for d in [Date::MIN, Date::MAX, near_min, date!(0000 - 01 - 01), date!(9999 - 12 - 31)] {
                let _ = g.bucket_start(d);
                let _ = g.default_start(d);
                let _ = g.bucket_count(Date::MIN, d);
                let _ = g.bucket_count(d, Date::MAX);
                let _ = SeriesRange::new(Date::MIN, d, g);
                let _ = SeriesRange::new(d, Date::MAX, g);
            }
        }
        // Date::MIN (-9999-01-01) is a Monday; the defaults reach before it and are refused.
        let friday = Date::from_calendar_date(-9999, Month::January, 5).expect("valid");
        assert_eq!(Granularity::Week.bucket_start(friday), Some(Date::MIN));
        assert_eq!(Granularity::Week.default_start(Date::MIN), None);
        assert_eq!(Granularity::Day.default_start(Date::MIN), None);
        assert_eq!(Granularity::Month.default_start(Date::MIN), None);
        assert!(SeriesRange::new(Date::MIN, friday, Granularity::Week).is_ok());
        assert!(matches!(
            SeriesRange::new(Date::MIN, Date::MAX, Granularity::Day),
            Err(SeriesRangeError::TooManyBuckets(_))
        ));
        assert_eq!(Granularity::Month.bucket_count(Date::MIN, Date::MAX), Some(239_988));
    }

    #[test]
    fn the_accepted_years_have_room_on_both_sides() {
        for g in [Granularity::Day, Granularity::Week, Granularity::Month] {
            let start = g.default_start(date!(1900 - 01 - 01)).expect("room before 1900");
            assert!(SeriesRange::new(start, date!(1900 - 01 - 01), g).is_ok());
            let start = g.default_start(date!(2200 - 12 - 31)).expect("room before 2200");
            assert!(SeriesRange::new(start, date!(2200 - 12 - 31), g).is_ok());
        }
        assert_eq!(Granularity::Month.default_start(date!(1900 - 01 - 01)), Some(date!(1899 - 02 - 01)));
        assert!(matches!(
            SeriesRange::new(date!(1900 - 01 - 01), date!(2200 - 12 - 31), Granularity::Month),
            Err(SeriesRangeError::TooManyBuckets(3612))
        ));
    }

    #[test]
    fn parses_names_in_any_case() {
        assert_eq!(LifecyclePeriod::parse(" Quarter "), Some(LifecyclePeriod::Quarter));
        assert_eq!(LifecyclePeriod::parse("decade"), None);
        assert_eq!(Granularity::parse("WEEK"), Some(Granularity::Week));
        assert_eq!(Granularity::parse("hour"), None);
        assert_eq!(LifecyclePeriod::default().as_str(), "month");
    }
}
