//! ISO 3166-1 countries from the `keshvar` crate.

use crate::currencies::Currency;
use crate::languages::Language;
use icu_locale::{LanguageIdentifier, LocaleExpander};
use keshvar::{Continent, Country as KCountry, Region, SUPPORTED_ALPHA2_LIST};

#[derive(serde::Serialize)]
pub struct Country {
    pub code: String,
    pub name: String,
    pub region: String,
    pub currency_code: String,
    pub calling_code: String,
    pub local_name: String,
    pub language_code: String,
}

/// CLDR's default language, and the last resort.
const FALLBACK_LANGUAGE: &str = "en";

pub fn generate(currencies: &[Currency], languages: &[Language]) -> crate::Result<Vec<Country>> {
    let expander = LocaleExpander::new_extended();
    let mut out = Vec::new();
    for alpha2 in SUPPORTED_ALPHA2_LIST {
        let c = alpha2.to_country();
        let code = c.alpha2().to_string().to_uppercase();
        let region = region(&c).ok_or_else(|| format!("{code}: no region"))?;
        // A superseded code (e.g. BGN) is replaced by its successor from iso_currency.
        let currency = iso_currency::Currency::from_code(&c.currency_code().to_string())
            .ok_or_else(|| format!("{code}: unknown currency {}", c.currency_code()))?
            .latest();
        let currency_code = currency.code().to_owned();
        if !currencies.iter().any(|cur| cur.code == currency_code) {
            return Err(
                format!("{code}: currency {currency_code} is not an active currency").into(),
            );
        }
        let is_639_1 = |l: &str| languages.iter().any(|lang| lang.code == l);
        let language_code = main_language(&expander, &code, &c, is_639_1)?;
        let name = c.iso_short_name().to_owned();
        let local_name = match translation(&c, &language_code, &code) {
            Some(local) => local.to_owned(),
            None => {
                eprintln!("{code}: no '{language_code}' translation, using the English name");
                name.clone()
            }
        };
        out.push(Country {
            code,
            name,
            region,
            currency_code,
            calling_code: format!("+{}", c.country_code()),
            local_name,
            language_code,
        });
    }
    Ok(out)
}

/// UN M49 region; the three Antarctic territories (AQ, BV, HM) have none in M49.
fn region(c: &KCountry) -> Option<String> {
    let name = match (c.maybe_region(), c.continent()) {
        (Some(Region::Africa), _) => "Africa",
        (Some(Region::Americas), _) => "Americas",
        (Some(Region::Asia), _) => "Asia",
        (Some(Region::Europe), _) => "Europe",
        (Some(Region::Oceania), _) => "Oceania",
        (Some(Region::Antarctica), _) | (None, Continent::Antarctica) => "Antarctica",
        (None, _) => return None,
    };
    Some(name.to_owned())
}

/// Main language: CLDR's most likely language for the territory (likely subtags of
/// `und-XX`) when it has an ISO 639-1 code (not so for e.g. `fil`, `pap`, `tpi`);
/// otherwise keshvar's first official (then spoken) ISO 639-1 language; otherwise English.
fn main_language(
    expander: &LocaleExpander,
    code: &str,
    c: &KCountry,
    is_639_1: impl Fn(&str) -> bool,
) -> crate::Result<String> {
    let mut langid: LanguageIdentifier = format!("und-{code}").parse()?;
    expander.maximize(&mut langid);
    // ICU4X leaves the language `und` where it is CLDR's default, English (und-GB,
    // und-AU, ...), and for the uninhabited AQ, HM, GS: all of them get English.
    let cldr = match langid.language.as_str() {
        "und" => FALLBACK_LANGUAGE,
        other => other,
    };
    if is_639_1(cldr) {
        return Ok(cldr.to_owned());
    }
    let listed = [
        c.maybe_official_language_list(),
        c.maybe_spoken_language_list(),
    ]
    .into_iter()
    .flatten()
    .flat_map(|list| list.iter())
    .find(|l| is_639_1(l));
    let chosen = listed.copied().unwrap_or(FALLBACK_LANGUAGE);
    eprintln!("{code}: CLDR likely language '{cldr}' is not ISO 639-1, using '{chosen}'");
    Ok(chosen.to_owned())
}

/// keshvar's translation of the country name into `lang`, else its regional variant for
/// this country (`zh_TW` for TW), else Bokmål for macrolanguage Norwegian, else the
/// alphabetically first regional variant (`zh_CN` for MO).
fn translation(c: &KCountry, lang: &str, code: &str) -> Option<&'static str> {
    let t = c.translations();
    let regional = format!("{lang}_{code}");
    let bokmal = if lang == "no" { "nb" } else { lang };
    let exact = [lang, regional.as_str(), bokmal]
        .into_iter()
        .find_map(|key| t.get(key).copied());
    let prefix = format!("{lang}_");
    let mut variants: Vec<_> = t.iter().filter(|(k, _)| k.starts_with(&prefix)).collect();
    variants.sort();
    exact.or_else(|| variants.first().map(|(_, v)| **v))
}
