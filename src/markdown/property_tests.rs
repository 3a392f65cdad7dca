//! Property tests: rendering any input never panics, and its output is well-formed HTML
//! (every element closed in order, as html5ever tokenizes it) with no `<script>`, no `on*`
//! event-handler attribute and no `javascript:` URL. Inputs are arbitrary strings and
//! Markdown-heavy ones built from Zulip's syntax (fences, links, mentions, math, raw HTML,
//! emoji, timestamps, unicode). Math goes through KaTeX (`node_katex`).

use std::cell::RefCell;

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::{BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer};
use proptest::prelude::*;

use super::{render, CustomEmoji, LinkableChannel, Linkifier, MentionableGroup, MentionableUser, Resolved};

fn resolved() -> Resolved {
    Resolved {
        users: vec![MentionableUser { id: 10, full_name: "King Hamlet".into() }],
        groups: vec![MentionableGroup { id: 30, name: "support".into() }],
        channels: vec![LinkableChannel { id: 9, name: "Verona".into() }],
        linkifiers: vec![Linkifier { pattern: "#(?P<id>[0-9]+)".into(), url_template: "https://trac.example.com/ticket/{id}".into() }],
        custom_emoji: vec![CustomEmoji { name: "parrot".into(), source_url: "/user_avatars/2/emoji/images/1.gif".into() }],
        translate_emoticons: true,
        tex: super::node_katex::renderer(),
        realm_url: "https://chat.example.com".into(),
    }
}

/// Elements that never have an end tag.
const VOID: &[&str] = &["area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"];

/// Collects what is wrong with the tokens it sees.
#[derive(Default)]
struct Checker {
    open: RefCell<Vec<String>>,
    problems: RefCell<Vec<String>>,
}

impl Checker {
    fn problem(&self, problem: String) {
        self.problems.borrow_mut().push(problem);
    }
}

impl TokenSink for Checker {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        match token {
            Token::TagToken(tag) => {
                let name = tag.name.to_string();
                if name == "script" {
                    self.problem("a <script> element".into());
                }
                for attr in &tag.attrs {
                    let attr_name = attr.name.local.to_ascii_lowercase();
                    if attr_name.starts_with("on") {
                        self.problem(format!("event-handler attribute {attr_name}"));
                    }
                    let value: String = attr.value.chars().filter(|c| !c.is_whitespace() && !c.is_control()).collect();
                    if value.to_ascii_lowercase().starts_with("javascript:") {
                        self.problem(format!("javascript: URL in {attr_name}"));
                    }
                }
                match tag.kind {
                    TagKind::StartTag if tag.self_closing || VOID.contains(&name.as_str()) => {}
                    TagKind::StartTag => self.open.borrow_mut().push(name),
                    TagKind::EndTag => {
                        let top = self.open.borrow_mut().pop();
                        if top.as_deref() != Some(name.as_str()) {
                            self.problem(format!("</{name}> closes {top:?}"));
                        }
                    }
                }
            }
            Token::ParseError(error) => self.problem(format!("parse error: {error}")),
            Token::CommentToken(_) | Token::DoctypeToken(_) => self.problem("a comment or doctype".into()),
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// What is wrong with `html` (empty when it is well-formed and safe).
fn problems(html: &str) -> Vec<String> {
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let tokenizer = Tokenizer::new(Checker::default(), Default::default());
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    let mut problems = tokenizer.sink.problems.take();
    let unclosed = tokenizer.sink.open.take();
    if !unclosed.is_empty() {
        problems.push(format!("unclosed elements {unclosed:?}"));
    }
    problems
}

/// One piece of Zulip Markdown (or of hostile text).
fn piece() -> impl Strategy<Value = String> {
    let fixed = prop::sample::select(vec![
        "```",
        "```python",
        "```math",
        "```tex",
        "```js",
        "```py2",
        "```\" onclick=\"x",
        "#!python",
        "#!/usr/bin/env \"><script>",
        "~~~quote",
        "```spoiler Title",
        "````",
        "~~~",
        "> ",
        ">",
        "- ",
        "* ",
        "1. ",
        "   - ",
        "# ",
        "**",
        "*",
        "~~",
        "`",
        "``",
        "$$",
        "$$x^2$$",
        "$$\\frac{a}{b}$$",
        "$$<script>alert(1)</script>$$",
        "$$\\href{javascript:alert(1)}{x}$$",
        "\\error{x}",
        "@**King Hamlet**",
        "@_**King Hamlet|10**",
        "@**all**",
        "@*support*",
        "#**Verona**",
        "#**Verona>topic**",
        "[link](https://example.com)",
        "[x](javascript:alert(1))",
        "[x](JaVaScRiPt:alert(1))",
        "<javascript:alert(1)>",
        "https://example.com/a_(b)?q=1&r=2",
        "www.example.com",
        "https://a.com/x.png",
        "[pic](https://a.com/y.jpg?q=\"><script>)",
        "[cat.png](/user_uploads/2/ab/cd/cat.png)",
        "https://chat.example.com/#narrow/stream/1-x",
        "[here](https://chat.example.com/user_uploads/2/a/b/c.gif)",
        "me@example.com",
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "<a href=\"javascript:alert(1)\">x</a>",
        "\" onmouseover=\"alert(1)",
        "&amp;",
        "&",
        "<",
        ">",
        ":smile:",
        ":parrot:",
        ":)",
        "<3",
        "#123",
        "<time:2024-01-01T10:00:00Z>",
        "|a|b|\n|-|-|\n|1|2|",
        "---",
        "    code",
        "\\",
        "\t",
        "😀",
        "👨\u{200d}👩\u{200d}👧",
        "\u{202e}",
        "\u{e000}",
        "é",
        "日本語",
    ])
    .prop_map(str::to_string);
    prop_oneof![4 => fixed, 1 => "[a-z ]{1,8}", 1 => "\\PC{1,6}"]
}

/// Markdown-heavy content: pieces joined by spaces, newlines or nothing.
fn markdown() -> impl Strategy<Value = String> {
    let separator = prop::sample::select(vec!["", " ", "\n", "\n\n"]);
    prop::collection::vec((piece(), separator), 1..24)
        .prop_map(|parts| parts.into_iter().map(|(piece, separator)| format!("{piece}{separator}")).collect())
}

fn check(content: &str) -> Result<(), TestCaseError> {
    let html = render(content, &resolved()).html;
    let found = problems(&html);
    prop_assert!(found.is_empty(), "input {content:?}\noutput {html:?}\nproblems {found:?}");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn markdown_heavy_input_renders_to_well_formed_safe_html(content in markdown()) {
        check(&content)?;
    }

    #[test]
    fn arbitrary_input_renders_to_well_formed_safe_html(content in any::<String>()) {
        check(&content)?;
    }
}

#[test]
fn the_checker_catches_what_it_looks_for() {
    assert!(problems("<p>a <em>b</em></p><br><img src=\"/x.png\">").is_empty());
    assert!(!problems("<p><em>a</p></em>").is_empty());
    assert!(!problems("<p>a").is_empty());
    assert!(!problems("<script>x</script>").is_empty());
    assert!(!problems("<img src=x onerror=\"y\">").is_empty());
    assert!(!problems("<a href=\" java&#x73;cript:x\">a</a>").is_empty());
}
