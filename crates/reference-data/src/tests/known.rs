//! Spot checks of well-known entries.

use super::super::*;

fn country(code: &str) -> &'static Country {
    countries().iter().find(|c| c.code == code).expect("country present")
}
fn currency(code: &str) -> &'static Currency {
    currencies().iter().find(|c| c.code == code).expect("currency present")
}
fn language(code: &str) -> &'static Language {
    languages().iter().find(|l| l.code == code).expect("language present")
}
fn timezone(code: &str) -> Option<&'static Timezone> {
    timezones().iter().find(|t| t.code == code)
}

#[test]
fn known_countries() {
    let ua = country("UA");
    assert_eq!(
        (ua.name.as_str(), ua.region.as_str(), ua.currency_code.as_str(), ua.calling_code.as_str()),
        ("Ukraine", "Europe", "UAH", "+380")
    );
    assert_eq!((ua.local_name.as_str(), ua.language_code.as_str()), ("Україна", "uk"));
    let us = country("US");
    assert_eq!((us.region.as_str(), us.currency_code.as_str(), us.calling_code.as_str()), ("Americas", "USD", "+1"));
    assert_eq!(us.language_code, "en");
    let jp = country("JP");
    assert_eq!((jp.name.as_str(), jp.region.as_str(), jp.currency_code.as_str()), ("Japan", "Asia", "JPY"));
    assert_eq!((jp.calling_code.as_str(), jp.local_name.as_str(), jp.language_code.as_str()), ("+81", "日本", "ja"));
    let aq = country("AQ");
    assert_eq!((aq.region.as_str(), aq.currency_code.as_str()), ("Antarctica", "USD"));
}

#[test]
fn known_currencies() {
    let uah = currency("UAH");
    assert_eq!((uah.decimal_digits, uah.symbol.as_str()), (2, "₴"));
    assert_eq!(currency("JPY").decimal_digits, 0);
    assert_eq!(currency("BHD").decimal_digits, 3);
    for excluded in ["XAU", "XDR", "XTS", "XXX", "BOV", "USN", "HRK"] {
        assert!(currencies().iter().all(|c| c.code != excluded), "{excluded} should be excluded");
    }
}

#[test]
fn known_languages() {
    let ar = language("ar");
    assert_eq!((ar.direction.as_str(), ar.native_name.as_str()), ("RTL", "العربية"));
    let uk = language("uk");
    assert_eq!((uk.name.as_str(), uk.native_name.as_str(), uk.direction.as_str()), ("Ukrainian", "українська", "LTR"));
    assert_eq!(language("en").direction, "LTR");
    for rtl in ["he", "fa", "ur", "yi", "ps", "dv", "sd", "ug"] {
        assert_eq!(language(rtl).direction, "RTL", "{rtl}");
    }
}

#[test]
fn known_timezones() {
    let check = |code: &str, region: &str, offset: &str, dst: bool| {
        let tz = timezone(code).expect("timezone present");
        assert_eq!((tz.region.as_str(), tz.utc_offset.as_str(), tz.supports_dst), (region, offset, dst), "{code}");
    };
    check("Europe/Kyiv", "Europe", "+02:00", true);
    check("Asia/Tokyo", "Asia", "+09:00", false);
    check("America/St_Johns", "America", "-03:30", true);
    check("Etc/UTC", "Etc", "+00:00", false);
    assert_eq!(timezone("Europe/Kyiv").map(|t| t.name.as_str()), Some("Kyiv"));
    for link in ["Europe/Kiev", "US/Eastern", "UTC", "CET", "Africa/Asmara"] {
        assert!(timezone(link).is_none(), "{link} is a Link, not a Zone");
    }
}
