//! Regenerates the embedded data files of the `reference-data` crate.
//!
//! Usage: `reference-data-generator OUT_DIR [ZONEINFO_DIR]`
//! (ZONEINFO_DIR defaults to `/usr/share/zoneinfo`). See README.md.

mod countries;
mod currencies;
mod languages;
mod timezones;

use std::error::Error;
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn main() -> Result<()> {
    let mut args = std::env::args_os().skip(1);
    let out: PathBuf = args
        .next()
        .ok_or("usage: reference-data-generator OUT_DIR [ZONEINFO_DIR]")?
        .into();
    let zoneinfo: PathBuf = args
        .next()
        .map_or_else(|| "/usr/share/zoneinfo".into(), Into::into);
    std::fs::create_dir_all(&out)?;

    let currencies = currencies::generate();
    let languages = languages::generate()?;
    let countries = countries::generate(&currencies, &languages)?;
    let timezones = timezones::generate(&zoneinfo)?;

    write(&out, "countries", &countries, |c| &c.code)?;
    write(&out, "currencies", &currencies, |c| &c.code)?;
    write(&out, "languages", &languages, |l| &l.code)?;
    write(&out, "timezones", &timezones, |t| &t.code)?;
    Ok(())
}

/// Writes `items` sorted by code as a JSON array with one compact object per line
/// (valid JSON, yet readable in diffs).
fn write<T: serde::Serialize>(
    dir: &Path,
    name: &str,
    items: &[T],
    code: fn(&T) -> &String,
) -> Result<()> {
    let mut sorted: Vec<&T> = items.iter().collect();
    sorted.sort_by(|a, b| code(a).cmp(code(b)));
    let lines = sorted
        .iter()
        .map(serde_json::to_string)
        .collect::<serde_json::Result<Vec<_>>>()?;
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, format!("[\n{}\n]\n", lines.join(",\n")))?;
    eprintln!("wrote {} entries to {}", lines.len(), path.display());
    Ok(())
}
