//! The one phone-number rule of every context: `+`, a country code and a number valid for it,
//! stored in E.164 form. Identity's contacts and customer management's customers ask it through
//! their own `PhoneNumbers` ports, both implemented here over the phone library.

/// `raw` (surrounding blanks ignored) in E.164 form, or `None` when it does not start with `+` or
/// is not a valid number for its country code.
pub fn e164(raw: &str) -> Option<String> {
    let raw = raw.trim();
    if !raw.starts_with('+') {
        return None;
    }
    let number = phonenumber::parse(None, raw).ok()?;
    phonenumber::is_valid(&number).then(|| number.format().mode(phonenumber::Mode::E164).to_string())
}

/// The phone library behind identity's and customer management's `PhoneNumbers` ports.
#[derive(Debug, Clone, Copy, Default)]
pub struct LibPhoneNumbers;

impl identity_domain::application::ports::PhoneNumbers for LibPhoneNumbers {
    #[tracing::instrument(name = "identity.phone_e164", skip_all)]
    fn normalise(&self, raw: &str) -> Result<String, identity_domain::IdentityError> {
        e164(raw).ok_or(identity_domain::IdentityError::InvalidPhone)
    }
}

impl crm_domain::ports::PhoneNumbers for LibPhoneNumbers {
    #[tracing::instrument(name = "crm.phone_e164", skip_all)]
    fn to_e164(&self, raw: &str) -> Option<String> {
        e164(raw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phones_need_a_plus_and_a_valid_number_and_are_stored_as_e164() {
        assert_eq!(e164(" +380 44 123 4567 ").as_deref(), Some("+380441234567"));
        assert_eq!(e164("+1 (415) 555-2671").as_deref(), Some("+14155552671"));
        assert_eq!(e164("+1 (201) 555-0123").as_deref(), Some("+12015550123"));
        for bad in ["380441234567", "+1", "+999 123", "phone", ""] {
            assert_eq!(e164(bad), None, "{bad}");
        }
    }
}
