//! Emoticon translation (`:)` becomes `:smile:`), for senders who turned on
//! `translate_emoticons`. An emoticon counts only between Zulip's terminal symbols (or the
//! ends of the text), so `a:)` stays as typed.

use std::borrow::Cow;

/// Zulip's emoticon table (`EMOTICON_CONVERSIONS`).
const CONVERSIONS: &[(&str, &str)] = &[
    (":)", ":smile:"),
    ("(:", ":smile:"),
    (":(", ":frown:"),
    ("<3", ":heart:"),
    (":|", ":neutral:"),
    (":/", ":confused:"),
    (";)", ":wink:"),
    (":D", ":grinning:"),
    (":o", ":open_mouth:"),
    (":O", ":open_mouth:"),
    (":p", ":stuck_out_tongue:"),
    (":P", ":stuck_out_tongue:"),
];

fn is_terminal(c: char) -> bool {
    ",.;?!()[] \"'\n\t".contains(c)
}

/// `text` with each emoticon replaced by its `:name:` shortcode.
pub fn translate(text: &str) -> Cow<'_, str> {
    let mut out = String::new();
    let (mut written, mut at) = (0, 0);
    while at < text.len() {
        let rest = &text[at..];
        let before_ok = text[..at].chars().next_back().is_none_or(is_terminal);
        let found = CONVERSIONS
            .iter()
            .find(|(emoticon, _)| rest.starts_with(emoticon) && rest[emoticon.len()..].chars().next().is_none_or(is_terminal));
        match found {
            Some((emoticon, name)) if before_ok => {
                out.push_str(&text[written..at]);
                out.push_str(name);
                at += emoticon.len();
                written = at;
            }
            _ => at += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    if written == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[written..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::translate;

    #[test]
    fn emoticons_between_terminal_symbols_become_shortcodes() {
        assert_eq!(translate(":) foo :( <3"), ":smile: foo :frown: :heart:");
        assert_eq!(translate("this !:)?"), "this !:smile:?");
        assert_eq!(translate("a:) ;)b : )"), "a:) ;)b : )");
    }
}
