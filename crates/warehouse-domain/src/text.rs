//! Text rules shared by warehouse inputs: trim, reject control characters, cap the length.

use crate::error::WarehouseError;

fn invalid(field: &'static str, message: &'static str) -> WarehouseError {
    WarehouseError::Validation { field, message }
}

/// Trimmed text of 1..=`max` characters without control characters.
pub(crate) fn required(value: &str, field: &'static str, max: usize) -> Result<String, WarehouseError> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Err(invalid(field, "is required"));
    }
    if trimmed.chars().count() > max {
        return Err(invalid(field, "is too long"));
    }
    if trimmed.chars().any(char::is_control) {
        return Err(invalid(field, "must not contain control characters"));
    }
    Ok(trimmed.to_owned())
}

/// Like [`required`], but absent or blank becomes `None`.
pub(crate) fn optional(value: Option<&str>, field: &'static str, max: usize) -> Result<Option<String>, WarehouseError> {
    match value.map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => required(text, field, max).map(Some),
    }
}

/// `None` or an integer ≥ 0.
pub(crate) fn non_negative(value: Option<i64>, field: &'static str) -> Result<Option<i64>, WarehouseError> {
    match value {
        Some(v) if v < 0 => Err(invalid(field, "must be 0 or more")),
        other => Ok(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        assert_eq!(required(" a ", "f", 1), Ok("a".into()));
        assert_eq!(required("  ", "f", 1), Err(invalid("f", "is required")));
        assert_eq!(required("ab", "f", 1), Err(invalid("f", "is too long")));
        assert_eq!(required("a\u{0}", "f", 5), Err(invalid("f", "must not contain control characters")));
        assert_eq!(optional(None, "f", 1), Ok(None));
        assert_eq!(optional(Some(" "), "f", 1), Ok(None));
        assert_eq!(optional(Some("x"), "f", 1), Ok(Some("x".into())));
        assert_eq!(non_negative(Some(0), "f"), Ok(Some(0)));
        assert_eq!(non_negative(Some(-1), "f"), Err(invalid("f", "must be 0 or more")));
    }
}
