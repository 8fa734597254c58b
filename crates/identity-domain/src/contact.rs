//! Contacts: typed values of a user (email, phone, address).

use serde::{Deserialize, Serialize};

use crate::credentials::Email;
use crate::IdentityError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContactType {
    Email,
    Phone,
    Address,
}

impl ContactType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Email => "email",
            Self::Phone => "phone",
            Self::Address => "address",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        match raw.trim().to_ascii_lowercase().as_str() {
            "email" => Some(Self::Email),
            "phone" => Some(Self::Phone),
            "address" => Some(Self::Address),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Address {
    pub street: Option<String>,
    pub city: Option<String>,
    pub state: Option<String>,
    pub postal_code: Option<String>,
    /// ISO 3166-1 alpha-2; the adapter checks it exists in the reference data.
    pub country: String,
}

/// The value of a contact; only the one matching its type exists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContactValue {
    Email(Email),
    /// E.164, already validated by a phone-number library at the edge.
    Phone(String),
    Address(Address),
}

impl ContactValue {
    pub fn kind(&self) -> ContactType {
        match self {
            Self::Email(_) => ContactType::Email,
            Self::Phone(_) => ContactType::Phone,
            Self::Address(_) => ContactType::Address,
        }
    }
}

fn optional_text(field: &'static str, value: Option<String>, max: usize) -> Result<Option<String>, IdentityError> {
    match value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()) {
        Some(v) if v.chars().count() > max => {
            Err(IdentityError::invalid(field, format!("must be at most {max} characters")))
        }
        other => Ok(other),
    }
}

/// Normalises an address: trims parts, upper-cases the country code.
pub fn parse_address(raw: Address) -> Result<Address, IdentityError> {
    let country = raw.country.trim().to_ascii_uppercase();
    if country.len() != 2 || !country.chars().all(|c| c.is_ascii_uppercase()) {
        return Err(IdentityError::invalid("address.country", "must be an ISO 3166-1 alpha-2 code"));
    }
    Ok(Address {
        street: optional_text("address.street", raw.street, 255)?,
        city: optional_text("address.city", raw.city, 100)?,
        state: optional_text("address.state", raw.state, 100)?,
        postal_code: optional_text("address.postal_code", raw.postal_code, 20)?,
        country,
    })
}

/// A label is free text of at most 100 characters.
pub fn parse_label(raw: Option<String>) -> Result<String, IdentityError> {
    Ok(optional_text("label", raw, 100)?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_and_labels() {
        let address =
            parse_address(Address { country: " ua ".into(), city: Some(" Kyiv ".into()), ..Address::default() })
                .expect("valid");
        assert_eq!((address.country.as_str(), address.city.as_deref()), ("UA", Some("Kyiv")));
        assert!(parse_address(Address { country: "UKR".into(), ..Address::default() }).is_err());
        assert!(parse_address(Address { country: "".into(), ..Address::default() }).is_err());
        assert!(parse_address(Address {
            country: "UA".into(),
            postal_code: Some("1".repeat(21)),
            ..Address::default()
        })
        .is_err());
        assert_eq!(parse_label(Some(" home ".into())), Ok("home".into()));
        assert_eq!(parse_label(None), Ok(String::new()));
        assert!(parse_label(Some("x".repeat(101))).is_err());
        assert_eq!(ContactType::parse("Phone"), Some(ContactType::Phone));
        assert_eq!(ContactType::parse("fax"), None);
        assert_eq!(ContactValue::Phone("+380441234567".into()).kind(), ContactType::Phone);
    }
}
