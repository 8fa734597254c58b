//! Tags: trimmed, 1..=50 characters each, duplicates removed, at most 50.

use std::collections::HashSet;

/// The most distinct tags one record may carry (counted after trimming and removing duplicates).
pub const MAX_TAGS: usize = 50;
/// The longest tag, in characters after trimming.
pub const MAX_TAG_CHARS: usize = 50;

/// Why a tag list was refused; the message is what the client reads in `details`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    /// A tag is blank after trimming, or longer than [`MAX_TAG_CHARS`] characters.
    #[error("a tag must be 1 to 50 characters")]
    Length,
    /// The list holds more than [`MAX_TAGS`] distinct tags.
    #[error("at most 50 tags are allowed")]
    TooMany,
}

/// Normalises a tag list: each tag trimmed, exact duplicates (case-sensitive) dropped, first-seen
/// order kept; [`TagError`] for a blank or overlong tag or too many distinct ones. Linear in the input: duplicates are found with
/// a set, and the walk stops at the first tag beyond [`MAX_TAGS`] distinct ones.
pub fn normalize_tags<I, S>(raw: I) -> Result<Vec<String>, TagError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<str>,
{
    let mut tags: Vec<String> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    for tag in raw {
        let tag = tag.as_ref().trim();
        let chars = tag.chars().count();
        if chars == 0 || chars > MAX_TAG_CHARS {
            return Err(TagError::Length);
        }
        if !seen.contains(tag) {
            if tags.len() == MAX_TAGS {
                return Err(TagError::TooMany);
            }
            seen.insert(tag.to_owned());
            tags.push(tag.to_owned());
        }
    }
    Ok(tags)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_dedups_and_limits() {
        assert_eq!(normalize_tags([" vip ", "vip", "b2b"]), Ok(vec!["vip".into(), "b2b".into()]));
        assert_eq!(normalize_tags(["  "]), Err(TagError::Length));
        assert_eq!(normalize_tags(["x".repeat(51)]), Err(TagError::Length));
        let many: Vec<String> = (0..51).map(|i| i.to_string()).collect();
        assert_eq!(normalize_tags(&many), Err(TagError::TooMany));
        let dup_heavy: Vec<String> = (0..60).map(|i| (i % 50).to_string()).collect();
        assert_eq!(normalize_tags(&dup_heavy).map(|t| t.len()), Ok(50));
        let exactly: Vec<String> = (0..50).map(|i| format!("t{i}")).collect();
        assert_eq!(normalize_tags(&exactly), Ok(exactly.clone()));
        // A huge list is refused as soon as the 51st distinct tag appears.
        let huge: Vec<String> = (0..100_000).map(|i| i.to_string()).collect();
        assert_eq!(normalize_tags(&huge), Err(TagError::TooMany));
    }
}
