//! The generic JSON integration (`/api/v1/external/json`): the payload itself, pretty
//! printed in a `json` code block under the topic "JSON". Members keep the sender's order
//! and non-ASCII characters are escaped, as Python's `json.dumps(…, indent=2)` writes them.

use std::io;

use serde::Serialize;
use serde_json::ser::{Formatter, PrettyFormatter};

use super::ordered::Ordered;
use super::{Delivery, Notice};
use crate::error::ApiResult;

pub fn render(delivery: &Delivery) -> ApiResult<Option<Notice>> {
    let payload = Ordered::parse(delivery.body.unwrap_or(""))?;
    Ok(Some(Notice { topic: "JSON".into(), content: format!("```json\n{}\n```", pretty(&payload)), event: None }))
}

fn pretty(value: &Ordered) -> String {
    let mut out = Vec::new();
    let mut serializer = serde_json::Serializer::with_formatter(&mut out, AsciiPretty(PrettyFormatter::new()));
    // Writing to memory cannot fail, nor can serializing JSON that was just parsed.
    let _ = value.serialize(&mut serializer);
    String::from_utf8(out).unwrap_or_default()
}

/// serde_json's pretty printer (two spaces, `": "`), escaping non-ASCII as `\uXXXX`.
struct AsciiPretty<'a>(PrettyFormatter<'a>);

impl Formatter for AsciiPretty<'_> {
    fn write_string_fragment<W: ?Sized + io::Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        for c in fragment.chars() {
            if c.is_ascii() {
                writer.write_all(&[c as u8])?;
            } else {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
            }
        }
        Ok(())
    }
    fn begin_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + io::Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn begin_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + io::Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.0.end_object_value(w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_keep_their_order_and_non_ascii_is_escaped() {
        let payload: Ordered = serde_json::from_str(r#"{"z": 1, "a": ["é", {}], "m": null}"#).unwrap();
        assert_eq!(pretty(&payload), "{\n  \"z\": 1,\n  \"a\": [\n    \"\\u00e9\",\n    {}\n  ],\n  \"m\": null\n}");
    }
}
