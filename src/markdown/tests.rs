//! One test per rendering rule. Independent of the Zulip fixture file.

use super::*;

fn users() -> Resolved {
    Resolved {
        users: vec![
            MentionableUser { id: 10, full_name: "King Hamlet".into() },
            MentionableUser { id: 11, full_name: "Othello, the Moor of Venice".into() },
        ],
        groups: vec![MentionableGroup { id: 30, name: "support team".into() }],
        channels: vec![LinkableChannel { id: 9, name: "Verona".into() }, LinkableChannel { id: 12, name: "design (ui)".into() }],
        linkifiers: vec![],
        custom_emoji: vec![CustomEmoji { name: "party_parrot".into(), source_url: "/user_avatars/2/emoji/images/ab.gif".into() }],
        translate_emoticons: false,
        tex: TexRenderer::none(),
        realm_url: String::new(),
    }
}

fn html(content: &str) -> String {
    render(content, &users()).html
}

#[test]
fn references_lists_names_ids_groups_and_channels_once() {
    let refs = references(
        "@**King Hamlet** @_**King Hamlet** @**Iago|15** @**|16** @**all** @**topic** \
         @*support team* @_*core* #**Verona** #**Denmark>some topic** me@**nobody**",
    );
    assert_eq!(refs.user_names, vec!["King Hamlet"]);
    assert_eq!(refs.user_ids, vec![15, 16]);
    assert_eq!(refs.group_names, vec!["support team", "core"]);
    assert_eq!(refs.channel_names, vec!["Verona", "Denmark"]);
    assert!(refs.stream_wildcard);
    assert!(refs.topic_wildcard);
}

#[test]
fn references_see_a_topic_wildcard_only_when_one_is_written() {
    assert!(references("@_**topic** hi").topic_wildcard);
    assert!(!references("@**all** about the topic, @**King Hamlet**").topic_wildcard);
}

#[test]
fn references_see_a_channel_wildcard_only_when_one_is_written() {
    for wildcard in ["@**all**", "@**everyone**", "@_**channel**", "@**stream**"] {
        assert!(references(&format!("hi {wildcard}")).stream_wildcard, "{wildcard}");
    }
    assert!(!references("all of us, @**topic**, @**King Hamlet**").stream_wildcard);
    // Even where it could not render as a mention.
    assert!(references("x@**all**").stream_wildcard);
}

#[test]
fn user_mention_renders_span_and_counts_as_mention() {
    let r = render("hi @**king hamlet**!", &users());
    assert_eq!(r.html, r#"<p>hi <span class="user-mention" data-user-id="10">@King Hamlet</span>!</p>"#);
    assert_eq!(r.mentioned_user_ids.into_iter().collect::<Vec<_>>(), vec![10]);
}

#[test]
fn user_mention_by_id_needs_matching_name() {
    let r = render("@**|11** and @**Othello, the Moor of Venice|11**", &users());
    let span = r#"<span class="user-mention" data-user-id="11">@Othello, the Moor of Venice</span>"#;
    assert_eq!(r.html, format!("<p>{span} and {span}</p>"));
    assert_eq!(html("@**King Hamlet|11**"), "<p>@<strong>King Hamlet|11</strong></p>");
}

#[test]
fn silent_mention_has_no_at_and_does_not_notify() {
    let r = render("@_**King Hamlet** said", &users());
    assert_eq!(r.html, r#"<p><span class="user-mention silent" data-user-id="10">King Hamlet</span> said</p>"#);
    assert!(r.mentioned_user_ids.is_empty());
}

#[test]
fn unresolved_mention_stays_as_zulip_text() {
    let r = render("@**Nobody** and @*nogroup* and #**nochannel**", &users());
    assert_eq!(r.html, "<p>@<strong>Nobody</strong> and @<em>nogroup</em> and #<strong>nochannel</strong></p>");
    assert!(r.mentioned_user_ids.is_empty() && r.mentioned_group_ids.is_empty());
}

#[test]
fn mention_needs_whitespace_or_punctuation_before() {
    assert_eq!(html("me@**King Hamlet**"), "<p>me@<strong>King Hamlet</strong></p>");
    assert!(html("(@**King Hamlet**)").contains(r#"(<span class="user-mention""#));
}

#[test]
fn stream_wildcards_render_and_set_flag() {
    for word in ["all", "everyone", "channel", "stream"] {
        let r = render(&format!("@**{word}** look"), &Resolved::default());
        assert_eq!(r.html, format!(r#"<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@{word}</span> look</p>"#));
        assert!(r.stream_wildcard && !r.topic_wildcard);
    }
}

#[test]
fn topic_wildcard_renders_and_sets_flag() {
    let r = render("@**topic** look", &Resolved::default());
    assert_eq!(r.html, r#"<p><span class="topic-mention">@topic</span> look</p>"#);
    assert!(r.topic_wildcard && !r.stream_wildcard);
}

#[test]
fn silent_wildcards_do_not_set_flags() {
    let r = render("@_**all** @_**topic**", &Resolved::default());
    assert!(!r.stream_wildcard && !r.topic_wildcard);
    assert!(r.html.contains(r#"<span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span>"#));
    assert!(r.html.contains(r#"<span class="topic-mention silent">topic</span>"#));
}

#[test]
fn group_mention_renders_and_counts() {
    let r = render("@*Support Team* and @_*support team*", &users());
    assert_eq!(
        r.html,
        r#"<p><span class="user-group-mention" data-user-group-id="30">@support team</span> and <span class="user-group-mention silent" data-user-group-id="30">support team</span></p>"#
    );
    assert_eq!(r.mentioned_group_ids.into_iter().collect::<Vec<_>>(), vec![30]);
}

#[test]
fn mentions_inside_quotes_are_silent() {
    let r = render("> @**King Hamlet** @*support team* @**all**", &users());
    assert!(r.html.contains(r#"<span class="user-mention silent" data-user-id="10">King Hamlet</span>"#));
    assert!(r.mentioned_user_ids.is_empty() && r.mentioned_group_ids.is_empty() && !r.stream_wildcard);
    let fenced = render("```quote\n@**King Hamlet**\n```", &users());
    assert!(fenced.mentioned_user_ids.is_empty());
}

#[test]
fn channel_link_renders_narrow_url() {
    assert_eq!(
        html("see #**Verona**"),
        r##"<p>see <a class="stream" data-stream-id="9" href="/#narrow/channel/9-Verona">#Verona</a></p>"##
    );
    assert_eq!(
        html("#**design (ui)**"),
        r##"<p><a class="stream" data-stream-id="12" href="/#narrow/channel/12-design-.28ui.29">#design (ui)</a></p>"##
    );
}

#[test]
fn topic_link_renders_narrow_url() {
    assert_eq!(
        html("#**Verona>rome & co.**"),
        r##"<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-Verona/topic/rome.20.26.20co.2E">#Verona &gt; rome &amp; co.</a></p>"##
    );
}

#[test]
fn fenced_code_block_has_language_and_no_markdown_inside() {
    let r = render("```py\nx = '@**King Hamlet**' < 1\n```", &users());
    assert_eq!(
        r.html,
        r#"<div class="codehilite" data-code-language="Python"><pre><span></span><code><span class="n">x</span> <span class="o">=</span> <span class="s1">&#39;@**King Hamlet**&#39;</span> <span class="o">&lt;</span> <span class="mi">1</span>
</code></pre></div>"#
    );
    assert!(r.mentioned_user_ids.is_empty());
    assert_eq!(html("~~~\nplain\n~~~"), "<div class=\"codehilite\"><pre><span></span><code>plain\n</code></pre></div>");
}

#[test]
fn quote_markdown_and_fence_become_blockquotes() {
    assert_eq!(html("> quoted **bold**"), "<blockquote>\n<p>quoted <strong>bold</strong></p>\n</blockquote>");
    assert_eq!(html("```quote\nline one\nline two\n```"), "<blockquote>\n<p>line one<br>\nline two</p>\n</blockquote>");
}

#[test]
fn spoiler_renders_header_and_hidden_content() {
    assert_eq!(
        html("```spoiler The *ending*\nHe dies.\n```"),
        "<div class=\"spoiler-block\"><div class=\"spoiler-header\">\n<p>The <em>ending</em></p>\n</div><div class=\"spoiler-content\" aria-hidden=\"true\">\n<p>He dies.</p>\n</div></div>"
    );
}

#[test]
fn me_message_is_detected_by_prefix() {
    assert!(render("/me waves", &Resolved::default()).is_me_message);
    assert!(!render("/mewaves", &Resolved::default()).is_me_message);
    assert!(!render("hello /me waves", &Resolved::default()).is_me_message);
}

#[test]
fn single_newlines_become_line_breaks() {
    assert_eq!(html("one\ntwo"), "<p>one<br>\ntwo</p>");
}

#[test]
fn bare_urls_are_linked() {
    assert_eq!(
        html("see https://zulip.com/api. or zulip.org"),
        r#"<p>see <a href="https://zulip.com/api">https://zulip.com/api</a>. or <a href="http://zulip.org">zulip.org</a></p>"#
    );
}

#[test]
fn html_is_escaped_as_text() {
    assert_eq!(html("<b>bold</b> & <i>"), "<p>&lt;b&gt;bold&lt;/b&gt; &amp; &lt;i&gt;</p>");
    assert_eq!(html("<div>\nblock\n</div>"), "<p>&lt;div&gt;<br>\nblock<br>\n&lt;/div&gt;</p>");
}

#[test]
fn script_injection_is_neutralised() {
    assert_eq!(html("<script>alert(1)</script>"), "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
    assert_eq!(html("[click](javascript:alert(1))"), "<p>[click](javascript:alert(1))</p>");
    assert_eq!(html("<javascript:alert(1)>"), "<p>&lt;javascript:alert(1)&gt;</p>");
    assert_eq!(
        html(r#"[x](https://a.com/"onmouseover="alert(1))"#),
        r#"<p><a href="https://a.com/&quot;onmouseover=&quot;alert(1)">x</a></p>"#
    );
    let hostile = Resolved {
        users: vec![MentionableUser { id: 1, full_name: "<img src=x onerror=alert(1)>".into() }],
        groups: vec![],
        channels: vec![LinkableChannel { id: 2, name: "\"><script>".into() }],
        linkifiers: vec![],
        custom_emoji: vec![],
        translate_emoticons: false,
        tex: TexRenderer::none(),
        realm_url: String::new(),
    };
    let r = render("@**<img src=x onerror=alert(1)>** #**\"><script>**", &hostile);
    assert!(!r.html.contains("<img") && !r.html.contains("<script"), "{}", r.html);
}

/// Hostile inputs at Zulip's maximum message length must render in linear-ish time (a
/// Worker has little CPU) and without exhausting the stack.
#[test]
fn hostile_inputs_render_quickly() {
    let cases: Vec<String> = vec![
        "**a** ".repeat(1700),
        "@**a** #**b** @*c* ".repeat(500),
        ">".repeat(10_000),
        "> ".repeat(5_000),
        "a:".repeat(5_000),
        ":".repeat(10_000),
        "'a".repeat(5_000),
        format!("x a.com{}", "!".repeat(9_990)),
        "~~~quote\n".repeat(1_000),
        "```\n".repeat(2_500),
        "* a\n  ".repeat(2_000),
        "1. a\n  ".repeat(2_000),
        "[a](".repeat(2_500),
        "*_".repeat(5_000),
        "\u{E000}".repeat(6_400) + &"x".repeat(3_000),
    ];
    for content in cases {
        let started = std::time::Instant::now();
        let rendered = render(&content, &Resolved::default());
        let elapsed = started.elapsed();
        assert!(elapsed.as_secs_f64() < 3.0, "{:?}… took {elapsed:?}", &content[..20.min(content.len())]);
        assert!(!rendered.html.contains("<script"));
    }
}

#[test]
fn zulip_markdown_differences_from_commonmark() {
    // No backslash escapes, no `_` emphasis, no setext headings, no reference links.
    assert_eq!(html(r"a\*b\*"), r"<p>a\*b\*</p>");
    assert_eq!(html("_em_ and __strong__"), "<p>_em_ and __strong__</p>");
    assert_eq!(html("Title\n==="), "<p>Title<br>\n===</p>");
    assert_eq!(html("Title\n---"), "<p>Title</p>\n<hr>");
    assert_eq!(html("[a]\n\n[a]: /x"), "<p>[a]</p>\n<p>[a]: /x</p>");
}

#[test]
fn tables_render_with_zulip_layout() {
    assert_eq!(
        html("a | b\n--|:-:\n1 | 2"),
        "<table>\n<thead>\n<tr>\n<th>a</th>\n<th style=\"text-align: center;\">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td style=\"text-align: center;\">2</td>\n</tr>\n</tbody>\n</table>"
    );
}

#[test]
fn global_times_render_as_time_elements() {
    assert_eq!(
        html("meet <time:2024-03-01T10:00:00+05:30> ok"),
        r#"<p>meet <time datetime="2024-03-01T04:30:00Z">2024-03-01T10:00:00+05:30</time> ok</p>"#
    );
    assert_eq!(html("<time:soon>"), r#"<p><span class="timestamp-error">Invalid time format: soon</span></p>"#);
    assert_eq!(html("`<time:1496701800>`"), "<p><code>&lt;time:1496701800&gt;</code></p>");
}

/// Whether every opened tag is closed in order (void elements aside).
fn balanced(html: &str) -> bool {
    let mut open: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        let Some(len) = rest[start..].find('>') else { return false };
        let tag = &rest[start + 1..start + len];
        rest = &rest[start + len + 1..];
        let name: String = tag.trim_start_matches('/').chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
        if matches!(name.as_str(), "br" | "hr" | "img") {
            continue;
        }
        if tag.starts_with('/') {
            if open.pop().as_deref() != Some(name.as_str()) {
                return false;
            }
        } else {
            open.push(name);
        }
    }
    open.is_empty()
}

/// Mixed snippets in many combinations always give well-formed HTML.
#[test]
fn output_is_well_formed_for_mixed_syntax() {
    let snippets = [
        "@**King Hamlet** ",
        "@_**all** ",
        "#**Verona>t** ",
        "**b** ",
        "*e* ",
        "_u_ ",
        "~~d~~ ",
        "`c` ",
        "<b>x</b> ",
        "[l](https://x.com) ",
        "[j](javascript:1) ",
        "https://a.com/(x) ",
        "\n",
        "\n\n",
        "> ",
        "* ",
        "1. ",
        "  * ",
        "```\ncode\n```\n",
        "```spoiler h\nbody\n```\n",
        "~~~quote\nq\n~~~\n",
        "# ",
        "| a | b |\n|---|---|\n| 1 | 2 |\n",
        "<time:1496701800> ",
        "    indented\n",
        "***x*** ",
        "\\* ",
    ];
    let mut seed: u64 = 42;
    for _ in 0..3000 {
        let mut content = String::new();
        for _ in 0..8 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            content.push_str(snippets[(seed >> 33) as usize % snippets.len()]);
        }
        let rendered = render(&content, &users());
        assert!(balanced(&rendered.html), "{content:?}\n=> {}", rendered.html);
        assert!(!rendered.html.contains("href=\"javascript"), "{}", rendered.html);
    }
}

#[test]
fn code_spans_do_not_cross_lines() {
    assert_eq!(html("`a\nb`"), "<p>`a<br>\nb`</p>");
    assert_eq!(html("` a `"), "<p><code> a </code></p>");
}

#[test]
fn channel_names_match_exactly_and_encode_unicode() {
    let resolved = Resolved {
        channels: vec![LinkableChannel { id: 5, name: "привет".into() }, LinkableChannel { id: 6, name: "CaseSens".into() }],
        ..Resolved::default()
    };
    assert_eq!(
        render("#**привет**", &resolved).html,
        r##"<p><a class="stream" data-stream-id="5" href="/#narrow/channel/5-.D0.BF.D1.80.D0.B8.D0.B2.D0.B5.D1.82">#привет</a></p>"##
    );
    assert_eq!(render("#**casesens**", &resolved).html, "<p>#<strong>casesens</strong></p>");
}

#[test]
fn same_named_users_are_told_apart_by_id() {
    let resolved = Resolved {
        users: vec![MentionableUser { id: 1, full_name: "Mark Twin".into() }, MentionableUser { id: 2, full_name: "Mark Twin".into() }],
        ..Resolved::default()
    };
    let r = render("@**Mark Twin|1**, @**Mark Twin|2**", &resolved);
    assert_eq!(
        r.html,
        r#"<p><span class="user-mention" data-user-id="1">@Mark Twin</span>, <span class="user-mention" data-user-id="2">@Mark Twin</span></p>"#
    );
    assert_eq!(r.mentioned_user_ids.into_iter().collect::<Vec<_>>(), vec![1, 2]);
}

fn emoji_span(code: &str, name: &str) -> String {
    let title = name.replace('_', " ");
    format!(r#"<span aria-label="{title}" class="emoji emoji-{code}" role="img" title="{title}">:{name}:</span>"#)
}

#[test]
fn emoji_shortcode_renders_span() {
    assert_eq!(html("hi :tada:"), format!("<p>hi {}</p>", emoji_span("1f389", "tada")));
}

#[test]
fn unicode_emoji_renders_span_with_canonical_name() {
    assert_eq!(html("ship it 🚀"), format!("<p>ship it {}</p>", emoji_span("1f680", "rocket")));
}

#[test]
fn unknown_emoji_name_stays_text() {
    assert_eq!(html("a :no_such_emoji: b"), "<p>a :no_such_emoji: b</p>");
}

#[test]
fn emoji_not_rendered_in_code() {
    assert_eq!(html("`:smile: 💩`"), "<p><code>:smile: 💩</code></p>");
    assert_eq!(html("```\n:smile: 💩\n```"), "<div class=\"codehilite\"><pre><span></span><code>:smile: 💩\n</code></pre></div>");
}

#[test]
fn emoji_rendered_inside_emphasis_headings_and_link_text() {
    assert_eq!(html("*:octopus:*"), format!("<p><em>{}</em></p>", emoji_span("1f419", "octopus")));
    assert_eq!(html("# :octopus: news"), format!("<h1>{} news</h1>", emoji_span("1f419", "octopus")));
    assert_eq!(
        html("[see :octopus:](https://example.com)"),
        format!("<p><a href=\"https://example.com\">see {}</a></p>", emoji_span("1f419", "octopus"))
    );
}

#[test]
fn autolinked_url_keeps_its_shortcode_text() {
    assert_eq!(
        html("https://example.com/:smile:/x :smile:"),
        format!("<p><a href=\"https://example.com/:smile:/x\">https://example.com/:smile:/x</a> {}</p>", emoji_span("1f642", "smile"))
    );
}

#[test]
fn emoji_not_rendered_inside_mentions() {
    let r = render("@**King Hamlet** :smile:", &users());
    assert_eq!(
        r.html,
        format!(r#"<p><span class="user-mention" data-user-id="10">@King Hamlet</span> {}</p>"#, emoji_span("1f642", "smile"))
    );
}

#[test]
fn linkifiers_link_matches_in_text_but_not_in_code_or_links() {
    let resolved = Resolved {
        linkifiers: vec![crate::markdown::Linkifier {
            pattern: "#(?P<id>[0-9]+)".into(),
            url_template: "https://trac.example.com/ticket/{id}".into(),
        }],
        ..Resolved::default()
    };
    assert_eq!(
        render("fixes #123 :smile:", &resolved).html,
        "<p>fixes <a href=\"https://trac.example.com/ticket/123\">#123</a> <span aria-label=\"smile\" class=\"emoji emoji-1f642\" role=\"img\" title=\"smile\">:smile:</span></p>"
    );
    assert_eq!(render("`#123`", &resolved).html, "<p><code>#123</code></p>");
    assert_eq!(render("[see #123](https://x.test/)", &resolved).html, "<p><a href=\"https://x.test/\">see #123</a></p>");
}

#[test]
fn topic_links_list_linkifier_matches_and_bare_urls_in_order() {
    let linker = crate::markdown::TopicLinker::new(&[crate::markdown::Linkifier {
        pattern: "#(?P<id>[0-9]+)".into(),
        url_template: "https://trac.example.com/ticket/{id}".into(),
    }]);
    let links = linker.links("https://zulip.com/ fixes #7");
    let pairs: Vec<(&str, &str)> = links.iter().map(|l| (l.text.as_str(), l.url.as_str())).collect();
    assert_eq!(pairs, vec![("https://zulip.com/", "https://zulip.com/"), ("#7", "https://trac.example.com/ticket/7")]);
    assert!(linker.links("nothing here").is_empty());
}

#[test]
fn custom_emoji_renders_as_zulip_image() {
    assert_eq!(
        html("so **:party_parrot:**"),
        r#"<p>so <strong><img alt=":party_parrot:" class="emoji" src="/user_avatars/2/emoji/images/ab.gif" title="party parrot"></strong></p>"#
    );
}

#[test]
fn custom_emoji_stays_text_in_code() {
    assert_eq!(html("`:party_parrot:`"), "<p><code>:party_parrot:</code></p>");
}

#[test]
fn references_list_custom_emoji_candidates() {
    assert_eq!(references("hi :party_parrot: :smile:").emoji_names, vec!["party_parrot", "smile"]);
}

#[test]
fn custom_emoji_url_is_escaped() {
    let hostile =
        Resolved { custom_emoji: vec![CustomEmoji { name: "x".into(), source_url: "\"><script>".into() }], ..Resolved::default() };
    let r = render(":x:", &hostile);
    assert!(!r.html.contains("<script") && r.html.contains(r#"src="&quot;&gt;&lt;script&gt;""#), "{}", r.html);
}

/// A stand-in typesetter: marks what it typeset, rejects `\error`.
fn fake_tex(tex: &str, display: bool) -> Option<String> {
    (!tex.contains("\\error")).then(|| format!("<m display=\"{display}\">{}</m>", super::html::text(tex)))
}

fn with_math(content: &str) -> String {
    render(content, &Resolved { tex: TexRenderer::new(fake_tex), ..Resolved::default() }).html
}

#[test]
fn inline_math_is_typeset_but_not_inside_code_spans() {
    assert_eq!(with_math("`$$a$$` and $$b$$"), "<p><code>$$a$$</code> and <m display=\"false\">b</m></p>");
    assert_eq!(with_math("$$a **b**$$ **c**"), "<p><m display=\"false\">a **b**</m> <strong>c</strong></p>");
}

#[test]
fn math_fence_typesets_each_paragraph_in_display_mode() {
    assert_eq!(
        with_math("```math\na\n\n\\error{b}\n```"),
        "<p><m display=\"true\">a</m>\n\n<span class=\"tex-error\">\\error{b}</span></p>"
    );
}

#[test]
fn math_inside_a_quote_is_typeset() {
    assert_eq!(with_math("> $$x$$"), "<blockquote>\n<p><m display=\"false\">x</m></p>\n</blockquote>");
}

#[test]
fn without_a_typesetter_math_shows_as_tex_error() {
    assert_eq!(html("$$x$$"), "<p><span class=\"tex-error\">$$x$$</span></p>");
}

fn html_for_realm(content: &str) -> String {
    render(content, &Resolved { realm_url: "https://chat.example.com".into(), ..Resolved::default() }).html
}

#[test]
fn links_into_the_organization_become_relative() {
    assert_eq!(
        html_for_realm("see https://chat.example.com/#narrow/channel/9-Verona and https://chat.example.com/help"),
        "<p>see <a href=\"#narrow/channel/9-Verona\">https://chat.example.com/#narrow/channel/9-Verona</a> and <a href=\"https://chat.example.com/help\">https://chat.example.com/help</a></p>"
    );
}

#[test]
fn uploaded_images_preview_from_the_file_itself() {
    assert_eq!(
        html_for_realm("[cat.png](/user_uploads/2/ab/cd/cat.png)"),
        "<p><a href=\"/user_uploads/2/ab/cd/cat.png\">cat.png</a></p>\n<div class=\"message_inline_image\"><a href=\"/user_uploads/2/ab/cd/cat.png\" title=\"cat.png\"><img src=\"/user_uploads/2/ab/cd/cat.png\"></a></div>"
    );
}

#[test]
fn quoted_images_do_not_preview() {
    assert_eq!(
        html_for_realm("> https://a.com/x.png"),
        "<blockquote>\n<p><a href=\"https://a.com/x.png\">https://a.com/x.png</a></p>\n</blockquote>"
    );
}

#[test]
fn images_in_other_markup_preview_at_the_end() {
    let html = html_for_realm("# https://a.com/x.png\n\ntext");
    assert!(
        html.starts_with(
            "<h1><a href=\"https://a.com/x.png\">https://a.com/x.png</a></h1>\n<p>text</p>\n<div class=\"message_inline_image\">"
        ),
        "{html}"
    );
}

#[test]
fn too_many_links_preview_nothing() {
    let many: Vec<String> = (0..25).map(|i| format!("https://a.com/{i}.png")).collect();
    assert!(!html_for_realm(&many.join(" ")).contains("message_inline_image"));
    assert_eq!(html_for_realm(&many[..24].join(" ")).matches("message_inline_image").count(), 24);
}

#[test]
fn code_without_a_language_is_highlighted_by_its_header_line() {
    assert_eq!(
        html("```\n#!/usr/bin/env python\nx\n```"),
        "<div class=\"codehilite\"><pre><span></span><code><span class=\"ch\">#!/usr/bin/env python</span>\n<span class=\"n\">x</span>\n</code></pre></div>"
    );
    assert_eq!(html("```\n#!nosuchlang\nx\n```"), "<div class=\"codehilite\"><pre><span></span><code>#!nosuchlang\nx\n</code></pre></div>");
}

#[test]
fn unknown_languages_stay_plain_and_keep_their_name() {
    assert_eq!(
        html("```nosuchlang\nx = 1\n```"),
        "<div class=\"codehilite\" data-code-language=\"nosuchlang\"><pre><span></span><code>x = 1\n</code></pre></div>"
    );
}
