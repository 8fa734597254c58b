//! A first pass over a JSON body that refuses any array longer than [`MAX_ARRAY_ITEMS`] before the
//! body is built as a tree (docs/bounded-work.md). A 1 MiB body of half a million items would otherwise
//! become half a million values, and then half a million schema errors: 0.3 s of a worker's thread and
//! about 200 MiB for one request. The pass builds nothing; it remembers only the path it is on, to name
//! the array it refuses.

use serde::de::{DeserializeSeed, Deserializer, Error, MapAccess, SeqAccess, Visitor};

/// The most items any array of a JSON body may hold, wherever it stands: more than every bound the
/// contract sets (`maxItems` 200 at most).
pub const MAX_ARRAY_ITEMS: usize = 1000;

/// The path of the first array of `body` holding more than [`MAX_ARRAY_ITEMS`] items (`tags`,
/// `items[2].codes`, `body` for the body itself); `None` when there is none or the body is not JSON
/// (the full parse then says why).
pub fn overlong_array(body: &[u8]) -> Option<String> {
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    match (Scan { at: &Place::Root }).deserialize(&mut deserializer) {
        Err(error) => {
            let text = error.to_string();
            text.strip_prefix(OVERLONG).map(|rest| rest.split(" at line ").next().unwrap_or(rest).to_owned())
        }
        Ok(()) => None,
    }
}

const OVERLONG: &str = "overlong array: ";

/// Where the scan is: a chain of places from the body down, kept on the stack.
enum Place<'a> {
    Root,
    Key(&'a Place<'a>, String),
    Index(&'a Place<'a>, usize),
}

impl Place<'_> {
    fn path(&self) -> String {
        match self {
            Place::Root => "body".to_owned(),
            Place::Key(Place::Root, key) => key.clone(),
            Place::Key(parent, key) => format!("{}.{key}", parent.path()),
            Place::Index(parent, at) => format!("{}[{at}]", parent.path()),
        }
    }
}

struct Scan<'a> {
    at: &'a Place<'a>,
}

impl<'de> DeserializeSeed<'de> for Scan<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Scan<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: Error>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E: Error>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E: Error>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E: Error>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E: Error>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E: Error>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut items: A) -> Result<(), A::Error> {
        let mut count = 0;
        loop {
            let at = Place::Index(self.at, count);
            if items.next_element_seed(Scan { at: &at })?.is_none() {
                return Ok(());
            }
            count += 1;
            if count > MAX_ARRAY_ITEMS {
                return Err(A::Error::custom(format!("{OVERLONG}{}", self.at.path())));
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut entries: A) -> Result<(), A::Error> {
        while let Some(key) = entries.next_key::<std::borrow::Cow<'de, str>>()? {
            let at = Place::Key(self.at, key.into_owned());
            entries.next_value_seed(Scan { at: &at })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_first_overlong_array() {
        let many = vec!["1"; MAX_ARRAY_ITEMS + 1].join(",");
        let fine = vec!["1"; MAX_ARRAY_ITEMS].join(",");
        assert_eq!(overlong_array(format!(r#"{{"tags": [{fine}]}}"#).as_bytes()), None);
        assert_eq!(overlong_array(format!(r#"{{"tags": [{many}]}}"#).as_bytes()).as_deref(), Some("tags"));
        let nested = format!(r#"{{"a": {{"b": [[], [{many}]]}}}}"#);
        assert_eq!(overlong_array(nested.as_bytes()).as_deref(), Some("a.b[1]"));
        assert_eq!(overlong_array(format!("[{many}]").as_bytes()).as_deref(), Some("body"));
        assert_eq!(overlong_array(b"{not json"), None, "the full parse says why");
    }
}
