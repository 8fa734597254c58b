//! Text rules shared by the aggregates: trim, count characters (not bytes), map to a [`FieldError`].

use crate::error::FieldError;

/// Trimmed, 1..=`max` characters.
pub(crate) fn required_text(field: &'static str, raw: &str, max: usize) -> Result<String, FieldError> {
    let text = raw.trim();
    let chars = text.chars().count();
    if chars == 0 {
        return Err(FieldError::new(field, "must not be empty"));
    }
    if chars > max {
        return Err(FieldError::new(field, format!("must be at most {max} characters")));
    }
    Ok(text.to_owned())
}

/// Trimmed; blank means absent; at most `max` characters when present.
pub(crate) fn optional_text(
    field: &'static str,
    raw: Option<String>,
    max: usize,
) -> Result<Option<String>, FieldError> {
    match raw.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(text) => required_text(field, text, max).map(Some),
    }
}

/// Free text kept as written (descriptions, notes); only an all-blank value means absent.
pub(crate) fn free_text(raw: Option<String>) -> Option<String> {
    raw.filter(|text| !text.trim().is_empty())
}

/// Tags as the wire conventions define them (shared kernel).
pub(crate) fn tags(field: &'static str, raw: Vec<String>) -> Result<Vec<String>, FieldError> {
    shared_kernel::tags::normalize_tags(raw).map_err(|e| FieldError::new(field, e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn required_text_trims_and_counts_characters() {
        assert_eq!(required_text("name", "  Ada ", 3), Ok("Ada".to_owned()));
        assert_eq!(required_text("name", "ééé", 3), Ok("ééé".to_owned()));
        assert_eq!(required_text("name", "abcd", 3).map_err(|e| e.field), Err("name"));
        assert!(required_text("name", "   ", 3).is_err());
    }

    #[test]
    fn optional_text_treats_blank_as_absent() {
        assert_eq!(optional_text("source", None, 5), Ok(None));
        assert_eq!(optional_text("source", Some("  ".into()), 5), Ok(None));
        assert_eq!(optional_text("source", Some(" web ".into()), 5), Ok(Some("web".into())));
        assert!(optional_text("source", Some("toolong".into()), 5).is_err());
        assert_eq!(free_text(Some(" keep  spacing ".into())), Some(" keep  spacing ".into()));
        assert_eq!(free_text(Some(" \n".into())), None);
    }
}
