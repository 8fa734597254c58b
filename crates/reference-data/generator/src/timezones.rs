//! Canonical IANA time zones from the system tzdata (`tzdata.zi`, `zone1970.tab`),
//! with offsets computed by `jiff` from the compiled zoneinfo files of the same release.

use jiff::civil::date;
use jiff::tz::{Offset, TimeZone, TimeZoneDatabase};
use std::collections::BTreeSet;
use std::path::Path;

#[derive(serde::Serialize)]
pub struct Timezone {
    pub code: String,
    pub name: String,
    pub utc_offset: String,
    pub supports_dst: bool,
    pub region: String,
}

pub fn generate(zoneinfo: &Path) -> crate::Result<Vec<Timezone>> {
    let zones = canonical_zones(zoneinfo)?;
    let db = TimeZoneDatabase::from_dir(zoneinfo)?;
    let year = jiff::Zoned::now().year();
    eprintln!("timezones: offsets and DST for the year {year}");
    let mut out = Vec::new();
    for code in zones {
        let tz = db.get(&code)?;
        let (utc_offset, supports_dst) = standard_offset(&tz, year)?;
        let (region, rest) = code.split_once('/').unwrap_or(("Etc", code.as_str()));
        out.push(Timezone {
            name: rest.replace('_', " "),
            region: region.to_owned(),
            utc_offset: format_offset(utc_offset)?,
            supports_dst,
            code,
        });
    }
    Ok(out)
}

/// IANA's canonical zones: `Z` (Zone) lines of `tzdata.zi`, not `L` (Link) lines.
/// Debian compiles tzdata with `backzone` and keeps the System V zones (CET, EST5EDT, ...),
/// which turns ~100 of IANA's Links into Zones; keeping only zones listed in
/// `zone1970.tab` or in the `Etc` area restores exactly the Zones of IANA's main data.
fn canonical_zones(zoneinfo: &Path) -> crate::Result<BTreeSet<String>> {
    let zi = std::fs::read_to_string(zoneinfo.join("tzdata.zi"))?;
    let tab = std::fs::read_to_string(zoneinfo.join("zone1970.tab"))?;
    let listed: BTreeSet<&str> = tab
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| l.split('\t').nth(2))
        .collect();
    Ok(zi
        .lines()
        .filter_map(|l| l.strip_prefix("Z "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|z| listed.contains(z) || z.starts_with("Etc/"))
        .map(str::to_owned)
        .collect())
}

/// Returns (standard offset, observes DST) over the given year: DST is observed if any
/// period of the year is flagged DST; the standard offset is the lowest offset in use
/// during the year when DST is observed (IANA "rearguard" convention, so Europe/Dublin is
/// +00:00), otherwise the offset in effect at the end of the year.
fn standard_offset(tz: &TimeZone, year: i16) -> crate::Result<(Offset, bool)> {
    let start = date(year, 1, 1).to_zoned(TimeZone::UTC)?.timestamp();
    let end = date(year + 1, 1, 1).to_zoned(TimeZone::UTC)?.timestamp();
    let first = tz.to_offset_info(start);
    let mut periods = vec![(first.offset(), first.dst().is_dst())];
    for t in tz.following(start).take_while(|t| t.timestamp() < end) {
        periods.push((t.offset(), t.dst().is_dst()));
    }
    let supports_dst = periods.iter().any(|(_, dst)| *dst);
    let offset = if supports_dst {
        periods.iter().map(|(o, _)| *o).min()
    } else {
        periods.last().map(|(o, _)| *o)
    };
    Ok((offset.ok_or("no offset")?, supports_dst))
}

fn format_offset(offset: Offset) -> crate::Result<String> {
    let secs = offset.seconds();
    if secs % 60 != 0 {
        return Err(format!("offset {offset} is not whole minutes").into());
    }
    let sign = if secs < 0 { '-' } else { '+' };
    let mins = secs.abs() / 60;
    Ok(format!("{sign}{:02}:{:02}", mins / 60, mins % 60))
}
