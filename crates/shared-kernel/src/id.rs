//! Identifiers are UUID version 7: time-ordered, so new rows append to indexes.

use uuid::Uuid;

/// A fresh identifier for a new record or event: a UUID version 7, whose leading bits are the
/// creation time, so identifiers made later sort after earlier ones and new rows append to indexes.
pub fn new_id() -> Uuid {
    Uuid::now_v7()
}

/// Parses a client's UUID, surrounding blanks ignored; `None` when the text is not one. Accepts the
/// forms [`Uuid::try_parse`] does (the hyphenated wire form, and also simple, braced and URN forms).
pub fn parse_id(text: &str) -> Option<Uuid> {
    Uuid::try_parse(text.trim()).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_ids_are_version_7_and_ordered() {
        let first = new_id();
        let second = new_id();
        assert_eq!(first.get_version_num(), 7);
        assert!(first < second);
    }

    #[test]
    fn parse_rejects_garbage() {
        assert!(parse_id("not-a-uuid").is_none());
        assert!(parse_id("0192a0b4-7c6e-7d3e-9f00-000000000001").is_some());
    }
}
