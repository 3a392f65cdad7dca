//! A JSON value whose objects keep their members in the order the sender wrote them
//! (`serde_json::Value` sorts them), for integrations whose messages list members as
//! Zulip's Python, whose dicts keep that order, lists them.

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use crate::error::{ApiError, ApiResult};

/// A JSON value whose objects keep their members' order.
pub enum Ordered {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    Array(Vec<Ordered>),
    Object(Vec<(String, Ordered)>),
}

impl Ordered {
    /// A body's JSON; anything else is Zulip's "Malformed JSON".
    pub fn parse(body: &str) -> ApiResult<Ordered> {
        serde_json::from_str(body).map_err(|_| ApiError::bad_request("Malformed JSON"))
    }

    /// The member `key` of an object.
    pub fn member(&self, key: &str) -> Option<&Ordered> {
        match self {
            Ordered::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The members of an object (none for anything else).
    pub fn members(&self) -> &[(String, Ordered)] {
        match self {
            Ordered::Object(members) => members,
            _ => &[],
        }
    }

    /// The elements of a list (none for anything else).
    pub fn items(&self) -> &[Ordered] {
        match self {
            Ordered::Array(items) => items,
            _ => &[],
        }
    }

    /// Python's `str()` of the value, as Zulip's templates write it.
    pub fn python_str(&self) -> String {
        match self {
            Ordered::Null => "None".into(),
            Ordered::Bool(true) => "True".into(),
            Ordered::Bool(false) => "False".into(),
            Ordered::Number(n) => n.to_string(),
            Ordered::String(s) => s.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        }
    }
}

impl Serialize for Ordered {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Ordered::Null => s.serialize_unit(),
            Ordered::Bool(b) => s.serialize_bool(*b),
            Ordered::Number(n) => n.serialize(s),
            Ordered::String(text) => s.serialize_str(text),
            Ordered::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Ordered::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (key, value) in members {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for Ordered {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(OrderedVisitor)
    }
}

struct OrderedVisitor;

impl<'de> Visitor<'de> for OrderedVisitor {
    type Value = Ordered;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E>(self) -> Result<Ordered, E> {
        Ok(Ordered::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Ordered, E> {
        Ok(Ordered::Bool(b))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n.into()))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Ordered, E> {
        Ok(Ordered::Number(n.into()))
    }
    fn visit_f64<E>(self, n: f64) -> Result<Ordered, E> {
        Ok(serde_json::Number::from_f64(n).map_or(Ordered::Null, Ordered::Number))
    }
    fn visit_str<E>(self, s: &str) -> Result<Ordered, E> {
        Ok(Ordered::String(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Ordered, E> {
        Ok(Ordered::String(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ordered, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Ordered::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered, A::Error> {
        let mut members: Vec<(String, Ordered)> = Vec::new();
        while let Some((key, value)) = map.next_entry::<String, Ordered>()? {
            // A repeated key keeps its first place and its last value, as Python's dict.
            match members.iter_mut().find(|(k, _)| *k == key) {
                Some(member) => member.1 = value,
                None => members.push((key, value)),
            }
        }
        Ok(Ordered::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_writes_values_its_own_way() {
        let values = Ordered::parse(r#"[1, 2.5, true, null, "x", 14151.331895396988]"#).unwrap();
        let written: Vec<String> = values.items().iter().map(Ordered::python_str).collect();
        assert_eq!(written, ["1", "2.5", "True", "None", "x", "14151.331895396988"]);
    }
}
