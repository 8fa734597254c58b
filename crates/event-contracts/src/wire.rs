//! How instants and dates look inside payloads: RFC 3339 in UTC with a `Z` suffix, and `YYYY-MM-DD`.

/// `#[serde(with = "crate::wire::utc")]`: an instant as RFC 3339 in UTC, whatever its offset.
pub mod utc {
    use serde::{Deserialize, Deserializer, Serializer};
    use time::format_description::well_known::Rfc3339;
    use time::{OffsetDateTime, UtcOffset};

    pub fn serialize<S: Serializer>(at: &OffsetDateTime, serializer: S) -> Result<S::Ok, S::Error> {
        let at = at.to_offset(UtcOffset::UTC);
        match at.format(&Rfc3339) {
            Ok(text) => serializer.serialize_str(&text),
            // Years RFC 3339 cannot write (before 0, after 9999): the plain form rather than no event.
            Err(_) => serializer.collect_str(&at),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<OffsetDateTime, D::Error> {
        let text = String::deserialize(deserializer)?;
        OffsetDateTime::parse(&text, &Rfc3339).map_err(serde::de::Error::custom)
    }
}

/// `#[serde(with = "crate::wire::optional_date")]`: a date as `YYYY-MM-DD`, or `null`.
pub mod optional_date {
    use serde::{Deserialize, Deserializer, Serializer};
    use time::macros::format_description;
    use time::Date;

    pub fn serialize<S: Serializer>(day: &Option<Date>, serializer: S) -> Result<S::Ok, S::Error> {
        match day {
            Some(day) => serializer.collect_str(day),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Date>, D::Error> {
        let text = Option::<String>::deserialize(deserializer)?;
        text.map(|t| Date::parse(&t, format_description!("[year]-[month]-[day]")).map_err(serde::de::Error::custom))
            .transpose()
    }
}
