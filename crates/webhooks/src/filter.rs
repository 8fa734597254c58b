//! Event filters of a webhook endpoint (docs/webhooks.md): event names with `*` wildcards.
//! `*` stands for any run of characters, dots included: `order.*` is every order event
//! (`order.confirmed`, `order.line.added`), `*.created` every creation, `*` everything.
//! Matching happens in the fan-out statement only (`queue::DeliveryQueue::fan_out`, `*` as
//! LIKE's `%` and `_` escaped), so there is one implementation of it; this module checks patterns.

/// Patterns an endpoint listens to: 1 to 50 of them, each 1 to 100 characters of `a-z`, `0-9`,
/// `_`, `.` and `*`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventFilter {
    patterns: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidFilter {
    #[error("list 1 to 50 event names or patterns")]
    Count,
    #[error("'{0}' is not an event name or pattern (a-z, 0-9, _, . and * only, at most 100 characters)")]
    Pattern(String),
}

pub const MAX_PATTERNS: usize = 50;
const MAX_PATTERN_CHARS: usize = 100;

impl EventFilter {
    pub fn parse<S: AsRef<str>>(patterns: &[S]) -> Result<Self, InvalidFilter> {
        if patterns.is_empty() || patterns.len() > MAX_PATTERNS {
            return Err(InvalidFilter::Count);
        }
        let mut kept: Vec<String> = Vec::with_capacity(patterns.len());
        for pattern in patterns {
            let pattern = pattern.as_ref().trim();
            let valid = !pattern.is_empty()
                && pattern.len() <= MAX_PATTERN_CHARS
                && pattern.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b"_.*".contains(&b));
            if !valid {
                return Err(InvalidFilter::Pattern(pattern.to_owned()));
            }
            if !kept.iter().any(|k| k == pattern) {
                kept.push(pattern.to_owned());
            }
        }
        Ok(Self { patterns: kept })
    }

    pub fn patterns(&self) -> &[String] {
        &self.patterns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filter(patterns: &[&str]) -> EventFilter {
        EventFilter::parse(patterns).expect("valid")
    }

    #[test]
    fn patterns_are_checked_and_deduplicated() {
        assert_eq!(EventFilter::parse::<&str>(&[]), Err(InvalidFilter::Count));
        let many: Vec<String> = (0..51).map(|i| format!("e{i}")).collect();
        assert_eq!(EventFilter::parse(&many), Err(InvalidFilter::Count));
        for bad in ["", "Order.*", "order created", "order/*", &"a".repeat(101)] {
            assert!(matches!(EventFilter::parse(&[bad]), Err(InvalidFilter::Pattern(_))), "{bad:?}");
        }
        assert_eq!(filter(&[" order.* ", "order.*"]).patterns(), ["order.*"]);
    }
}
