//! Customer list queries: raw query-string values in, a validated [`CustomerFilter`] out.
//!
//! Parsing happens here, once, so every adapter receives the same typed filter and the HTTP layer only
//! forwards strings. Blank values (`?status=`) mean "no filter". `sort` accepts `created_at, updated_at,
//! name, email, status, tier`, comma-separated, `-` for descending (`-created_at,name`); anything else is
//! 400. Adapters always append `id DESC` as the last key so pages are stable.

use serde::Deserialize;
use shared_kernel::error::{Classified, ErrorKind};
use uuid::Uuid;

use crate::enums::{CustomerStatus, CustomerType, ParseEnumError, Tier};

/// Why a customer list query was refused; both cases are 400.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// `VALIDATION_ERROR` 400; `field` goes into `details`.
    #[error("{field}: {message}")]
    Invalid {
        /// The query parameter at fault (`status`, `tier`, `type`, `tags`, `search`, `sort`).
        field: &'static str,
        /// What is wrong with it.
        message: String,
    },
    /// `INVALID_UUID` 400 (an id filter that is not a UUID).
    #[error("{field}: not a valid UUID")]
    InvalidUuid {
        /// The query parameter at fault (`assigned_to`).
        field: &'static str,
    },
}

impl QueryError {
    /// The query parameter at fault, for the error's `details`.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            QueryError::Invalid { field, .. } | QueryError::InvalidUuid { field } => Some(field),
        }
    }

    fn invalid(field: &'static str, message: impl Into<String>) -> Self {
        QueryError::Invalid { field, message: message.into() }
    }
}

impl Classified for QueryError {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Validation
    }

    fn code(&self) -> &'static str {
        match self {
            QueryError::Invalid { .. } => "VALIDATION_ERROR",
            QueryError::InvalidUuid { .. } => "INVALID_UUID",
        }
    }
}

/// The raw `GET /customers` query (pagination aside), as the HTTP layer deserialises it.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct CustomerQuery {
    /// A [`CustomerStatus`] spelling.
    pub status: Option<String>,
    /// A [`Tier`] spelling.
    pub tier: Option<String>,
    /// A user id: the sales rep in charge.
    pub assigned_to: Option<String>,
    /// Comma-separated; a customer must carry all of them.
    pub tags: Option<String>,
    /// `individual` or `company` (`type` on the wire).
    #[serde(rename = "type")]
    pub customer_type: Option<String>,
    /// Case-insensitive substring of name, email or phone.
    pub search: Option<String>,
    /// Sort keys, as [`CustomerSort::parse`] reads them.
    pub sort: Option<String>,
}

/// A validated customer list filter. Adapters must treat `search` as literal text (escape `%`, `_`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CustomerFilter {
    /// Only customers in this status.
    pub status: Option<CustomerStatus>,
    /// Only customers at this tier.
    pub tier: Option<Tier>,
    /// Only customers assigned to this sales rep.
    pub assigned_to: Option<Uuid>,
    /// Every one of these (all-of), normalised like stored tags; empty means no tag filter.
    pub tags: Vec<String>,
    /// `individual` = no company, `company` = has one.
    pub customer_type: Option<CustomerType>,
    /// Case-insensitive substring of name, email or phone, trimmed, at most
    /// [`shared_kernel::bounds::MAX_SEARCH_CHARS`] characters.
    pub search: Option<String>,
    /// The order of the list (before the final `id DESC`).
    pub sort: CustomerSort,
}

fn present(raw: &Option<String>) -> Option<&str> {
    raw.as_deref().map(str::trim).filter(|text| !text.is_empty())
}

fn parse_enum<T>(
    field: &'static str,
    raw: &Option<String>,
    parse: fn(&str) -> Result<T, ParseEnumError>,
) -> Result<Option<T>, QueryError> {
    present(raw).map(parse).transpose().map_err(|e| QueryError::invalid(field, e.to_string()))
}

impl CustomerFilter {
    /// Parses every present parameter (blank means absent); the first bad one is the error.
    pub fn from_query(query: &CustomerQuery) -> Result<Self, QueryError> {
        let status = parse_enum("status", &query.status, CustomerStatus::parse)?;
        let tier = parse_enum("tier", &query.tier, Tier::parse)?;
        let customer_type = parse_enum("type", &query.customer_type, CustomerType::parse)?;
        let assigned_to = present(&query.assigned_to)
            .map(|text| shared_kernel::id::parse_id(text).ok_or(QueryError::InvalidUuid { field: "assigned_to" }))
            .transpose()?;
        let tags = match present(&query.tags) {
            None => Vec::new(),
            Some(text) => shared_kernel::tags::normalize_tags(text.split(',').filter(|t| !t.trim().is_empty()))
                .map_err(|e| QueryError::invalid("tags", e.to_string()))?,
        };
        let sort = present(&query.sort).map(CustomerSort::parse).transpose()?.unwrap_or_default();
        let search = present(&query.search).map(str::to_owned);
        if search.as_ref().is_some_and(|text| text.chars().count() > shared_kernel::bounds::MAX_SEARCH_CHARS) {
            let limit = shared_kernel::bounds::MAX_SEARCH_CHARS;
            return Err(QueryError::invalid("search", format!("must be at most {limit} characters")));
        }
        Ok(CustomerFilter { status, tier, assigned_to, tags, customer_type, search, sort })
    }
}

/// The columns a customer list may be sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CustomerSortField {
    /// `created_at`: when the customer was created.
    CreatedAt,
    /// `updated_at`: when the customer last changed.
    UpdatedAt,
    /// `name`.
    Name,
    /// `email`.
    Email,
    /// `status`, in lifecycle order (lead < prospect < customer < churned).
    Status,
    /// `tier`, in tier order (free < basic < pro < enterprise).
    Tier,
}

impl CustomerSortField {
    /// Every sortable field.
    pub const ALL: [CustomerSortField; 6] = [
        CustomerSortField::CreatedAt,
        CustomerSortField::UpdatedAt,
        CustomerSortField::Name,
        CustomerSortField::Email,
        CustomerSortField::Status,
        CustomerSortField::Tier,
    ];

    /// The wire name, which is also the column name.
    pub fn as_str(self) -> &'static str {
        match self {
            CustomerSortField::CreatedAt => "created_at",
            CustomerSortField::UpdatedAt => "updated_at",
            CustomerSortField::Name => "name",
            CustomerSortField::Email => "email",
            CustomerSortField::Status => "status",
            CustomerSortField::Tier => "tier",
        }
    }
}

/// The direction of one sort key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SortDirection {
    /// Ascending: the field as written (`name`).
    Asc,
    /// Descending: the field with a leading `-` (`-created_at`).
    Desc,
}

/// One or more distinct (field, direction) keys; default `created_at` descending (newest first).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerSort(Vec<(CustomerSortField, SortDirection)>);

impl Default for CustomerSort {
    fn default() -> Self {
        CustomerSort(vec![(CustomerSortField::CreatedAt, SortDirection::Desc)])
    }
}

impl CustomerSort {
    /// Parses `-created_at,name`: comma-separated fields of [`CustomerSortField`], `-` for
    /// descending, each at most once. Blank text gives the default; anything else is `Invalid {
    /// field: "sort" }`.
    pub fn parse(text: &str) -> Result<Self, QueryError> {
        if text.trim().is_empty() {
            return Ok(Self::default());
        }
        let mut keys: Vec<(CustomerSortField, SortDirection)> = Vec::new();
        for part in text.split(',').map(str::trim) {
            let (name, direction) = match part.strip_prefix('-') {
                Some(name) => (name, SortDirection::Desc),
                None => (part, SortDirection::Asc),
            };
            let field = CustomerSortField::ALL.into_iter().find(|f| f.as_str() == name).ok_or_else(|| {
                let allowed: Vec<&str> = CustomerSortField::ALL.iter().map(|f| f.as_str()).collect();
                QueryError::invalid("sort", format!("unknown sort field '{part}'; allowed: {}", allowed.join(", ")))
            })?;
            if keys.iter().any(|(seen, _)| *seen == field) {
                return Err(QueryError::invalid("sort", format!("'{name}' is listed more than once")));
            }
            keys.push((field, direction));
        }
        Ok(CustomerSort(keys))
    }

    /// The keys in order of precedence.
    pub fn keys(&self) -> &[(CustomerSortField, SortDirection)] {
        &self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CustomerSortField::{CreatedAt, Email, Name, Status, Tier as TierField, UpdatedAt};
    use SortDirection::{Asc, Desc};

    #[test]
    fn sort_parses_fields_and_directions() {
        let sort = CustomerSort::parse("-created_at,name").expect("valid");
        assert_eq!(sort.keys(), &[(CreatedAt, Desc), (Name, Asc)]);
        let all = CustomerSort::parse("updated_at, -email ,status,-tier").expect("valid");
        assert_eq!(all.keys(), &[(UpdatedAt, Asc), (Email, Desc), (Status, Asc), (TierField, Desc)]);
        assert_eq!(CustomerSort::parse("  ").expect("blank"), CustomerSort::default());
        assert_eq!(CustomerSort::default().keys(), &[(CreatedAt, Desc)]);
    }

    #[test]
    fn sort_rejects_anything_else() {
        for bad in ["id", "phone", "-", "name,", ",name", "--name", "+name", "name,-name", "Name", "created_at desc"] {
            let error = CustomerSort::parse(bad).expect_err(bad);
            assert_eq!((error.code(), error.field()), ("VALIDATION_ERROR", Some("sort")), "{bad}");
        }
    }

    fn query() -> CustomerQuery {
        CustomerQuery::default()
    }

    #[test]
    fn filter_from_query() {
        let rep = Uuid::from_u128(7);
        let raw = CustomerQuery {
            status: Some("prospect".into()),
            tier: Some(" PRO ".into()),
            assigned_to: Some(rep.to_string()),
            tags: Some("vip, b2b,,vip".into()),
            customer_type: Some("company".into()),
            search: Some("  ada ".into()),
            sort: Some("name".into()),
        };
        let filter = CustomerFilter::from_query(&raw).expect("valid");
        assert_eq!(
            filter,
            CustomerFilter {
                status: Some(CustomerStatus::Prospect),
                tier: Some(Tier::Pro),
                assigned_to: Some(rep),
                tags: vec!["vip".into(), "b2b".into()],
                customer_type: Some(CustomerType::Company),
                search: Some("ada".into()),
                sort: CustomerSort(vec![(Name, Asc)]),
            }
        );
        let blank = CustomerQuery { status: Some("".into()), tags: Some(" ".into()), ..query() };
        assert_eq!(CustomerFilter::from_query(&blank).expect("blank is no filter"), CustomerFilter::default());
    }

    #[test]
    fn a_search_is_at_most_two_hundred_characters() {
        let at_most = CustomerQuery { search: Some("é".repeat(200)), ..query() };
        assert!(CustomerFilter::from_query(&at_most).is_ok());
        let longer = CustomerQuery { search: Some("é".repeat(201)), ..query() };
        let error = CustomerFilter::from_query(&longer).expect_err("too long");
        assert_eq!(error.field(), Some("search"));
    }

    #[test]
    fn filter_errors_name_their_field() {
        let field = |q: CustomerQuery| {
            let e = CustomerFilter::from_query(&q).expect_err("rejected");
            (e.code(), e.field())
        };
        assert_eq!(
            field(CustomerQuery { status: Some("vip".into()), ..query() }),
            ("VALIDATION_ERROR", Some("status"))
        );
        assert_eq!(field(CustomerQuery { tier: Some("gold".into()), ..query() }), ("VALIDATION_ERROR", Some("tier")));
        assert_eq!(
            field(CustomerQuery { customer_type: Some("x".into()), ..query() }),
            ("VALIDATION_ERROR", Some("type"))
        );
        assert_eq!(
            field(CustomerQuery { assigned_to: Some("nope".into()), ..query() }),
            ("INVALID_UUID", Some("assigned_to"))
        );
        assert_eq!(field(CustomerQuery { tags: Some("x".repeat(51)), ..query() }), ("VALIDATION_ERROR", Some("tags")));
        assert_eq!(field(CustomerQuery { sort: Some("-id".into()), ..query() }), ("VALIDATION_ERROR", Some("sort")));
    }

    #[test]
    fn query_deserialises_type() {
        let q: CustomerQuery = serde_json::from_value(serde_json::json!({"type": "individual"})).expect("parses");
        assert_eq!(q.customer_type.as_deref(), Some("individual"));
    }
}
