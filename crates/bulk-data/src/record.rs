//! An exported record's fields as the database gives them (typed, in the view's order), and how a
//! field reads in a CSV cell and in JSON: the same values the API's views show, without building
//! and parsing JSON per record (docs/imports-and-exports.md, "Exports, on the wire").
//!
//! ```
//! use bulk_data::record::FieldValue;
//! use bulk_data::write::{CsvWriter, JsonlWriter};
//!
//! let fields = [FieldValue::Text("=Jo".into()), FieldValue::Integer(-7), FieldValue::List(vec!["a;b".into()])];
//! let mut csv = Vec::new();
//! CsvWriter::new(["name", "n", "tags"]).write_fields(&fields, &mut csv);
//! assert_eq!(String::from_utf8(csv).unwrap(), "'=Jo,-7,a\\;b\r\n");
//! let mut jsonl = Vec::new();
//! JsonlWriter.write_fields(&["name", "n", "tags"], &fields, &mut jsonl).unwrap();
//! assert_eq!(String::from_utf8(jsonl).unwrap(), "{\"name\":\"=Jo\",\"n\":-7,\"tags\":[\"a;b\"]}\n");
//! ```

use std::fmt::Write as _;

use serde::ser::{Serialize, SerializeSeq, Serializer};
use time::format_description::well_known::Rfc3339;
use time::{Date, OffsetDateTime};
use uuid::Uuid;

use crate::cell::join_list;

/// One field of an exported record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldValue {
    /// No value: an empty cell, `null` in JSON.
    Null,
    /// Text, neutralised in a cell.
    Text(String),
    /// A whole number, never neutralised (`-7` stays a number).
    Integer(i64),
    /// `true` or `false`.
    Boolean(bool),
    /// Written hyphenated, in lower case.
    Uuid(Uuid),
    /// Written as the API writes instants: RFC 3339, in UTC as stored.
    Instant(OffsetDateTime),
    /// Written `YYYY-MM-DD`.
    Date(Date),
    /// A list of text (tags, attendees): `;`-joined in a cell, an array in JSON.
    List(Vec<String>),
}

/// An instant as the API's views write it (`time::serde::rfc3339`); the fallback is for instants
/// RFC 3339 cannot hold (a year past 9999), which no column of Tally stores.
fn instant(t: &OffsetDateTime) -> String {
    t.format(&Rfc3339).unwrap_or_else(|_| t.to_string())
}

fn date(d: &Date, out: &mut String) {
    let _ = write!(out, "{:04}-{:02}-{:02}", d.year(), u8::from(d.month()), d.day());
}

impl FieldValue {
    /// Appends the field's cell text to `out`, before neutralisation; whether it is text (a number
    /// or boolean is never neutralised: `-7` stays a number).
    pub(crate) fn render_cell(&self, out: &mut String) -> bool {
        match self {
            Self::Null => false,
            Self::Text(s) => {
                out.push_str(s);
                true
            }
            Self::Integer(n) => {
                let _ = write!(out, "{n}");
                false
            }
            Self::Boolean(b) => {
                out.push_str(if *b { "true" } else { "false" });
                false
            }
            Self::Uuid(u) => {
                let _ = write!(out, "{}", u.hyphenated());
                true
            }
            Self::Instant(t) => {
                out.push_str(&instant(t));
                true
            }
            Self::Date(d) => {
                date(d, out);
                true
            }
            Self::List(items) => {
                join_list(items.iter().map(String::as_str), out);
                true
            }
        }
    }
}

/// As the API's JSON shows the field: `null`, a string, a number, a boolean, or an array of strings.
impl Serialize for FieldValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Null => serializer.serialize_none(),
            Self::Text(s) => serializer.serialize_str(s),
            Self::Integer(n) => serializer.serialize_i64(*n),
            Self::Boolean(b) => serializer.serialize_bool(*b),
            Self::Uuid(u) => u.serialize(serializer),
            Self::Instant(t) => serializer.serialize_str(&instant(t)),
            Self::Date(d) => {
                let mut text = String::with_capacity(10);
                date(d, &mut text);
                serializer.serialize_str(&text)
            }
            Self::List(items) => {
                let mut seq = serializer.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use time::macros::{date, datetime};

    #[test]
    fn fields_serialize_as_the_api_writes_them() {
        let id = Uuid::from_u128(0x0190_0000_0000_7000_8000_0000_0000_0001);
        let fields = vec![
            FieldValue::Null,
            FieldValue::Text("x\"y".into()),
            FieldValue::Integer(-3),
            FieldValue::Boolean(true),
            FieldValue::Uuid(id),
            FieldValue::Instant(datetime!(2026-11-29 03:04:05.120 UTC)),
            FieldValue::Instant(datetime!(2026-11-29 03:04:05 UTC)),
            FieldValue::Date(date!(2026 - 02 - 03)),
            FieldValue::List(vec!["a".into(), "b;c".into()]),
        ];
        assert_eq!(
            serde_json::to_value(&fields).expect("serializes"),
            json!([
                null,
                "x\"y",
                -3,
                true,
                id.to_string(),
                "2026-11-29T03:04:05.12Z",
                "2026-11-29T03:04:05Z",
                "2026-02-03",
                ["a", "b;c"]
            ])
        );
    }

    #[test]
    fn an_instant_reads_as_the_views_write_it() {
        #[derive(serde::Serialize)]
        struct View {
            #[serde(with = "time::serde::rfc3339")]
            at: OffsetDateTime,
        }
        for at in [datetime!(2026-11-29 03:04:05.123456 UTC), datetime!(1999-01-01 00:00:00 UTC)] {
            let view = serde_json::to_value(View { at }).expect("serializes");
            assert_eq!(view["at"], serde_json::to_value(FieldValue::Instant(at)).expect("serializes"));
        }
    }

    #[test]
    fn cells_render_by_type_and_say_whether_they_are_text() {
        let cases = [
            (FieldValue::Null, "", false),
            (FieldValue::Text("=1".into()), "=1", true),
            (FieldValue::Integer(-7), "-7", false),
            (FieldValue::Boolean(false), "false", false),
            (FieldValue::Date(date!(2026 - 12 - 31)), "2026-12-31", true),
            (FieldValue::List(vec!["x;y".into(), "=z".into()]), "x\\;y;=z", true),
            (FieldValue::List(Vec::new()), "", true),
        ];
        for (value, text, is_text) in cases {
            let mut out = String::new();
            assert_eq!(value.render_cell(&mut out), is_text, "{value:?}");
            assert_eq!(out, text);
        }
    }
}
