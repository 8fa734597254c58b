//! Whether an upsert row changes the record it matched, without storage.

use serde_json::{Map, Value};

/// What an upsert row does to the record it matched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UpsertDecision {
    /// Every value the row gives equals the record's: nothing is written, no event is raised.
    Unchanged,
    /// These fields (in the row's order) get the row's values.
    Changes(Vec<String>),
}

impl UpsertDecision {
    /// Whether nothing changes.
    pub fn is_unchanged(&self) -> bool {
        matches!(self, Self::Unchanged)
    }
}

/// Compares a row with the record it matched.
///
/// `stored` holds the record's update-able fields (those its update endpoints may change, in their
/// stored form: a customer's `name`, `phone`, `tags`, …); `incoming` is the row, parsed by the
/// resource's rules first (trimmed, e-mail lower-cased, phone in E.164, tags without duplicates), so
/// that equal values look equal. A field the row does not give, or that is not in `stored` (a key
/// such as `email`, or one no update endpoint changes), is not compared: `stored` lists every
/// update-able field, `null` when the record has none. `null` in the row equals `null` (JSONL can
/// clear a field; an empty CSV cell is an absent value and changes nothing).
pub fn decide(stored: &Map<String, Value>, incoming: &Map<String, Value>) -> UpsertDecision {
    let changes: Vec<String> = incoming
        .iter()
        .filter(|(key, value)| stored.get(*key).is_some_and(|old| old != *value))
        .map(|(key, _)| key.clone())
        .collect();
    if changes.is_empty() {
        UpsertDecision::Unchanged
    } else {
        UpsertDecision::Changes(changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().expect("an object")
    }

    #[test]
    fn equal_values_are_unchanged() {
        let stored = object(json!({"name": "Ann", "phone": null, "tags": ["a", "b"]}));
        let row = object(json!({"name": "Ann", "email": "ann@example.com", "tags": ["a", "b"], "phone": null}));
        assert_eq!(decide(&stored, &row), UpsertDecision::Unchanged);
        assert!(decide(&stored, &Map::new()).is_unchanged());
    }

    #[test]
    fn different_values_are_named_in_row_order() {
        let stored = object(json!({"name": "Ann", "phone": "+380441234567", "tags": ["a"]}));
        let row = object(json!({"tags": ["a", "b"], "name": "Ann", "phone": null}));
        let mut changes = match decide(&stored, &row) {
            UpsertDecision::Changes(fields) => fields,
            UpsertDecision::Unchanged => panic!("changes expected"),
        };
        changes.sort();
        assert_eq!(changes, ["phone", "tags"]);
    }

    #[test]
    fn fields_no_update_endpoint_changes_are_not_compared() {
        let stored = object(json!({"name": "Ann"}));
        let row = object(json!({"name": "Ann", "company_id": "c2", "id": "x"}));
        assert!(decide(&stored, &row).is_unchanged());
    }

    #[test]
    fn numbers_compare_as_numbers_and_types_matter() {
        let stored = object(json!({"price": 1250, "max_stock": null}));
        assert!(decide(&stored, &object(json!({"price": 1250}))).is_unchanged());
        assert!(!decide(&stored, &object(json!({"price": "1250"}))).is_unchanged());
        assert!(!decide(&stored, &object(json!({"max_stock": 0}))).is_unchanged());
    }
}
