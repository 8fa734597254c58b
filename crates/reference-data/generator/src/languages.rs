//! ISO 639-1 languages from `isolang` (names, autonyms) and CLDR (direction, via ICU4X).

use icu_locale::{LanguageIdentifier, LocaleDirectionality};

#[derive(serde::Serialize)]
pub struct Language {
    pub code: String,
    pub name: String,
    pub native_name: String,
    pub direction: String,
}

pub fn generate() -> crate::Result<Vec<Language>> {
    let directionality = LocaleDirectionality::new_extended();
    let mut out = Vec::new();
    for lang in isolang::languages() {
        let Some(code) = lang.to_639_1() else {
            continue;
        };
        let langid: LanguageIdentifier = code.parse()?;
        // CLDR: the direction of the language's likely script; unknown => LTR.
        let direction = if directionality.is_right_to_left(&langid) {
            "RTL"
        } else {
            "LTR"
        };
        let name = lang.to_name().to_owned();
        // No autonym in isolang (e.g. la, sh): fall back to the English name.
        let native_name = lang
            .to_autonym()
            .map_or_else(|| name.clone(), clean_autonym);
        out.push(Language {
            code: code.to_owned(),
            name,
            native_name,
            direction: direction.to_owned(),
        });
    }
    Ok(out)
}

/// Drops parenthesised romanisations and bidi marks from isolang's autonyms:
/// "башҡорт теле\u{200e} (Başķort tele), башҡортса\u{200e} (Başķortsa)" -> "башҡорт теле, башҡортса".
fn clean_autonym(autonym: &str) -> String {
    let mut out = String::new();
    let mut depth = 0u32;
    for ch in autonym.chars() {
        match ch {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            '\u{200e}' | '\u{200f}' => {}
            _ if depth == 0 => out.push(ch),
            _ => {}
        }
    }
    out.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace(" ,", ",")
}
