//! Small text rules shared by the order inputs: trim, treat blank as absent, cap the length.

use crate::error::OrderError;

/// Trims `value`; blank becomes `None`; more than `max` characters is a validation error on `field`.
pub(crate) fn optional(value: Option<String>, field: &'static str, max: usize) -> Result<Option<String>, OrderError> {
    let Some(value) = value else { return Ok(None) };
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    if trimmed.chars().count() > max {
        return Err(OrderError::Validation { field, message: "is too long" });
    }
    Ok(Some(trimmed.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_blanks_and_caps() {
        assert_eq!(optional(None, "notes", 3), Ok(None));
        assert_eq!(optional(Some("  ".into()), "notes", 3), Ok(None));
        assert_eq!(optional(Some(" abc ".into()), "notes", 3), Ok(Some("abc".into())));
        assert_eq!(
            optional(Some("abcd".into()), "notes", 3),
            Err(OrderError::Validation { field: "notes", message: "is too long" })
        );
    }
}
