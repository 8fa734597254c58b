//! What a CSV cell holds: formula neutralisation and its reverse, and lists in one cell.

use std::borrow::Cow;

/// The characters that make a spreadsheet read a text cell as a formula (OWASP's list): `=`, `+`,
/// `-`, `@`, tab and carriage return.
pub const FORMULA_TRIGGERS: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];

/// The prefix that keeps a spreadsheet from running a cell: `'`.
pub const NEUTRAL_PREFIX: char = '\'';

/// The separator of a list's items in one cell: `;`.
pub const LIST_SEPARATOR: char = ';';

/// Whether `c` starts what [`restore`] would take a prefix off: a trigger, or the prefix itself.
fn escapable(c: Option<char>) -> bool {
    c.is_some_and(|c| c == NEUTRAL_PREFIX || FORMULA_TRIGGERS.contains(&c))
}

/// Text as an export writes it into a cell: with a leading `'` when it starts with a formula
/// trigger, or with `'` followed by a trigger or another `'` (so that [`restore`] gives back exactly
/// what was written). Any other text is unchanged.
///
/// ```
/// use bulk_data::cell::{neutralise, restore};
/// assert_eq!(neutralise("=SUM(A1:A9)"), "'=SUM(A1:A9)");
/// assert_eq!(neutralise("+380441234567"), "'+380441234567");
/// assert_eq!(neutralise("'=quoted"), "''=quoted");
/// assert_eq!(neutralise("plain"), "plain");
/// assert_eq!(restore(&neutralise("'=quoted")), "'=quoted");
/// ```
pub fn neutralise(text: &str) -> Cow<'_, str> {
    let mut chars = text.chars();
    let first = chars.next();
    let needs = match first {
        Some(NEUTRAL_PREFIX) => escapable(chars.next()),
        Some(c) => FORMULA_TRIGGERS.contains(&c),
        None => false,
    };
    if needs {
        let mut out = String::with_capacity(text.len() + 1);
        out.push(NEUTRAL_PREFIX);
        out.push_str(text);
        Cow::Owned(out)
    } else {
        Cow::Borrowed(text)
    }
}

/// A cell as an import reads it: a leading `'` followed by a formula trigger or another `'` is
/// dropped; anything else is unchanged. `restore(&neutralise(s)) == s` for every string.
pub fn restore(cell: &str) -> &str {
    match cell.strip_prefix(NEUTRAL_PREFIX) {
        Some(rest) if escapable(rest.chars().next()) => rest,
        _ => cell,
    }
}

/// A list's items in one cell: joined by `;`, a `;` or `\` inside an item written `\;` or `\\`.
/// Items are not neutralised one by one: the whole cell is (see [`neutralise`]).
pub fn join_list<'a>(items: impl IntoIterator<Item = &'a str>, out: &mut String) {
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(LIST_SEPARATOR);
        }
        for c in item.chars() {
            if c == LIST_SEPARATOR || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        }
    }
}

/// A cell's list: split at each `;` not written `\;`, `\;` and `\\` read as `;` and `\` (a `\`
/// before anything else stays as it is), each item trimmed, empty items dropped.
pub fn split_list(cell: &str) -> Vec<String> {
    let mut items = Vec::new();
    let mut item = String::new();
    let mut chars = cell.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if matches!(chars.peek(), Some(&LIST_SEPARATOR) | Some(&'\\')) => {
                item.extend(chars.next());
            }
            LIST_SEPARATOR => items.push(std::mem::take(&mut item)),
            c => item.push(c),
        }
    }
    items.push(item);
    items.into_iter().map(|i| i.trim().to_owned()).filter(|i| !i.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every string of up to three characters over the interesting alphabet: each trigger, the
    /// prefix, a letter, a space, a `;`, a `\` and a multibyte character.
    fn short_strings() -> Vec<String> {
        let alphabet: Vec<char> =
            FORMULA_TRIGGERS.iter().copied().chain(['\'', 'a', ' ', ';', '\\', 'é', '"', '\n']).collect();
        let mut all = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..3 {
            let next: Vec<String> = last.iter().flat_map(|s| alphabet.iter().map(move |c| format!("{s}{c}"))).collect();
            all.extend(next.iter().cloned());
            last = next;
        }
        all
    }

    /// A small deterministic generator (xorshift) of longer strings over the same alphabet.
    fn generated_strings(count: usize) -> Vec<String> {
        let alphabet: Vec<char> = "=+-@\t\r'a Zé;\\\",\n0".chars().collect();
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count)
            .map(|_| {
                let len = (next() % 12) as usize;
                (0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]).collect()
            })
            .collect()
    }

    #[test]
    fn restore_undoes_neutralise_for_every_short_string() {
        let strings = short_strings();
        assert!(strings.len() > 2_000);
        for s in strings {
            assert_eq!(restore(&neutralise(&s)), s, "{s:?}");
        }
    }

    #[test]
    fn restore_undoes_neutralise_for_generated_strings() {
        for s in generated_strings(20_000) {
            assert_eq!(restore(&neutralise(&s)), s, "{s:?}");
        }
    }

    #[test]
    fn neutralised_text_never_starts_with_a_trigger() {
        for s in short_strings() {
            let first = neutralise(&s).chars().next();
            assert!(!first.is_some_and(|c| FORMULA_TRIGGERS.contains(&c)), "{s:?}");
        }
    }

    #[test]
    fn each_trigger_gets_the_prefix_and_loses_it_on_import() {
        for trigger in FORMULA_TRIGGERS {
            let text = format!("{trigger}1+1");
            assert_eq!(neutralise(&text), format!("'{text}"));
            assert_eq!(restore(&format!("'{text}")), text);
        }
        assert_eq!(neutralise("a=b"), "a=b");
        assert_eq!(neutralise(""), "");
        // An apostrophe before ordinary text is left alone both ways.
        assert_eq!(neutralise("'tis"), "'tis");
        assert_eq!(restore("'tis"), "'tis");
        assert_eq!(restore("'"), "'");
    }

    #[test]
    fn a_formula_cell_written_by_hand_is_kept_as_text() {
        // Not neutralised: restore leaves it; it is data (see the crate docs).
        assert_eq!(restore("=HYPERLINK(\"http://x\")"), "=HYPERLINK(\"http://x\")");
    }

    #[test]
    fn lists_round_trip_through_one_cell() {
        let cases: Vec<Vec<&str>> =
            vec![vec!["vip"], vec!["vip", "b2b"], vec!["a;b", "c\\d", "e\\;", "\\"], vec!["=x", "é ü", "with space"]];
        for items in cases {
            let mut cell = String::new();
            join_list(items.iter().copied(), &mut cell);
            assert_eq!(split_list(restore(&neutralise(&cell))), items, "{cell:?}");
        }
    }

    #[test]
    fn a_hand_written_list_is_trimmed_and_skips_empty_items() {
        assert_eq!(split_list(" vip ; b2b;;"), vec!["vip", "b2b"]);
        assert_eq!(split_list("a\\b"), vec!["a\\b"]);
        assert!(split_list(";").is_empty());
    }
}
