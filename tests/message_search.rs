//! Keyword search (`search:` in a narrow of `GET /messages`) through the full-text index:
//! English stemming, phrases, every keyword required, combined with the other operators,
//! access rules, the index after edits, moves and deletions, and Zulip's highlight fields.
//! Each test searches its own fresh channel or unique words, so tests never see each
//! other's messages.

mod chat;
mod common;
use chat::*;
use common::*;
use serde_json::{json, Value};

/// The messages `client` finds with `narrow`, newest last (up to 100 before the newest).
fn search(client: &Client, narrow: Value) -> Value {
    client.get("/messages", &[("anchor", "newest"), ("num_before", "100"), ("num_after", "0"), ("narrow", &narrow.to_string())]).success()
}

fn ids(body: &Value) -> Vec<i64> {
    body["messages"].as_array().unwrap().iter().map(|m| m["id"].as_i64().unwrap()).collect()
}

/// The ids `client` finds searching `words` in channel `channel`.
fn found_in(client: &Client, channel: &str, words: &str) -> Vec<i64> {
    ids(&search(client, json!([["channel", channel], ["search", words]])))
}

#[test]
fn search_finds_other_english_forms_of_a_word() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-stem");
    create_channel(&hamlet, &name, &[], &[]);
    let running = send_to_channel(&hamlet, &name, "t", "I was running late");
    let runs = send_to_channel(&hamlet, &name, "t", "she runs every day");
    let run = send_to_channel(&hamlet, &name, "t", "we run at dawn");
    send_to_channel(&hamlet, &name, "t", "a walk in the park");
    assert_eq!(found_in(&hamlet, &name, "running"), vec![running, runs, run]);
    assert_eq!(found_in(&hamlet, &name, "Runs"), vec![running, runs, run]);
}

#[test]
fn search_requires_every_keyword() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-all");
    create_channel(&hamlet, &name, &[], &[]);
    send_to_channel(&hamlet, &name, "t", "apples only");
    send_to_channel(&hamlet, &name, "t", "pears only");
    let both = send_to_channel(&hamlet, &name, "t", "pears and apples");
    assert_eq!(found_in(&hamlet, &name, "apples pears"), vec![both]);
}

#[test]
fn a_quoted_phrase_matches_its_words_in_order() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-phrase");
    create_channel(&hamlet, &name, &[], &[]);
    let in_order = send_to_channel(&hamlet, &name, "t", "our lunch plans today");
    send_to_channel(&hamlet, &name, "t", "plans for lunch");
    assert_eq!(found_in(&hamlet, &name, "\"lunch plans\""), vec![in_order]);
    assert_eq!(found_in(&hamlet, &name, "\"lunch plan\" today"), vec![in_order]);
}

#[test]
fn search_matches_the_topic() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-topic");
    create_channel(&hamlet, &name, &[], &[]);
    let in_topic = send_to_channel(&hamlet, &name, "budget review", "see above");
    send_to_channel(&hamlet, &name, "other", "see below");
    assert_eq!(found_in(&hamlet, &name, "budgets"), vec![in_topic]);
}

#[test]
fn search_syntax_in_the_operand_is_plain_text() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-syntax");
    create_channel(&hamlet, &name, &[], &[]);
    let hit = send_to_channel(&hamlet, &name, "t", "cats OR dogs: (both) near* here");
    send_to_channel(&hamlet, &name, "t", "cats alone");
    assert_eq!(found_in(&hamlet, &name, "cats OR dogs: (both) near*"), vec![hit]);
    assert_eq!(found_in(&hamlet, &name, "NOT \"unclosed"), Vec::<i64>::new());
}

#[test]
fn search_combines_with_sender_topic_is_and_has() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let name = unique("search-ops");
    create_channel(&hamlet, &name, &[], &[othello.user_id]);
    let from_hamlet = send_to_channel(&hamlet, &name, "alpha", "meeting notes");
    let from_othello = send_to_channel(&othello, &name, "beta", "meeting notes https://example.com/notes");
    hamlet.post("/messages/flags", &[("messages", &format!("[{from_othello}]")), ("op", "add"), ("flag", "starred")]).success();
    let with = |term: Value| ids(&search(&hamlet, json!([["channel", name], ["search", "meetings"], term])));
    assert_eq!(with(json!(["sender", othello.user_id])), vec![from_othello]);
    assert_eq!(with(json!(["topic", "alpha"])), vec![from_hamlet]);
    assert_eq!(with(json!(["is", "starred"])), vec![from_othello]);
    assert_eq!(with(json!(["has", "link"])), vec![from_othello]);
    assert_eq!(with(json!(["near", from_hamlet])), vec![from_hamlet, from_othello]);
    assert_eq!(with(json!({"operator": "sender", "operand": othello.user_id, "negated": true})), vec![from_hamlet]);
}

#[test]
fn search_results_come_newest_first_around_the_anchor() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-anchor");
    create_channel(&hamlet, &name, &[], &[]);
    let sent: Vec<i64> = (0..5).map(|i| send_to_channel(&hamlet, &name, "t", &format!("report number {i}"))).collect();
    send_to_channel(&hamlet, &name, "t", "unrelated");
    let narrow = json!([["channel", name], ["search", "reports"]]).to_string();
    let newest = hamlet.get("/messages", &[("anchor", "newest"), ("num_before", "2"), ("num_after", "0"), ("narrow", &narrow)]).success();
    assert_eq!(ids(&newest), vec![sent[3], sent[4]]);
    assert_eq!(newest["found_oldest"], false);
    let anchor = sent[2].to_string();
    let around = hamlet.get("/messages", &[("anchor", &anchor), ("num_before", "1"), ("num_after", "1"), ("narrow", &narrow)]).success();
    assert_eq!(ids(&around), vec![sent[1], sent[2], sent[3]]);
    assert_eq!(around["found_anchor"], true);
}

#[test]
fn search_never_finds_a_private_channel_the_searcher_cannot_read() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let word = unique("secretword");
    let (name, _) = new_channel(&hamlet, &[], true, true);
    let hidden = send_to_channel(&hamlet, &name, "t", &format!("the {word} is here"));
    assert_eq!(found_in(&hamlet, &name, &word), vec![hidden]);
    // Not subscribed: neither the channel's narrow nor a search of everything shows it.
    assert_eq!(found_in(&othello, &name, &word), Vec::<i64>::new());
    assert_eq!(ids(&search(&othello, json!([["search", word]]))), Vec::<i64>::new());
}

#[test]
fn search_in_a_private_channel_without_shared_history_skips_earlier_messages() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let word = unique("historyword");
    let (name, _) = new_channel(&hamlet, &[], true, false);
    send_to_channel(&hamlet, &name, "t", &format!("before {word}"));
    hamlet
        .post(
            "/users/me/subscriptions",
            &[("subscriptions", &json!([{ "name": name }]).to_string()), ("principals", &json!([othello.user_id]).to_string())],
        )
        .success();
    let after = send_to_channel(&hamlet, &name, "t", &format!("after {word}"));
    assert_eq!(found_in(&othello, &name, &word), vec![after]);
    assert_eq!(ids(&search(&othello, json!([["search", word]]))), vec![after]);
}

#[test]
fn an_edited_message_is_found_by_its_new_words_only() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-edit");
    create_channel(&hamlet, &name, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "t", "original wording");
    edit(&hamlet, id, &[("content", "revised phrasing")]).success();
    assert_eq!(found_in(&hamlet, &name, "original"), Vec::<i64>::new());
    assert_eq!(found_in(&hamlet, &name, "revised"), vec![id]);
}

#[test]
fn a_moved_message_is_found_under_its_new_topic_and_channel() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-move");
    let other = unique("search-move-to");
    create_channel(&hamlet, &name, &[], &[]);
    let to = create_channel(&hamlet, &other, &[], &[]);
    let id = send_to_channel(&hamlet, &name, "oldsubject", "moving body");
    edit(
        &hamlet,
        id,
        &[
            ("topic", "newsubject"),
            ("propagate_mode", "change_one"),
            ("send_notification_to_old_thread", "false"),
            ("send_notification_to_new_thread", "false"),
        ],
    )
    .success();
    assert_eq!(found_in(&hamlet, &name, "oldsubject"), Vec::<i64>::new());
    assert_eq!(found_in(&hamlet, &name, "newsubject"), vec![id]);
    edit(
        &hamlet,
        id,
        &[("stream_id", &to.to_string()), ("send_notification_to_old_thread", "false"), ("send_notification_to_new_thread", "false")],
    )
    .success();
    assert_eq!(found_in(&hamlet, &name, "newsubject"), Vec::<i64>::new());
    assert_eq!(found_in(&hamlet, &other, "newsubject moving"), vec![id]);
}

#[test]
fn a_deleted_message_is_no_longer_found() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-delete");
    create_channel(&hamlet, &name, &[], &[]);
    let gone = send_to_channel(&hamlet, &name, "t", "ephemeral words");
    let kept = send_to_channel(&hamlet, &name, "t", "ephemeral words again");
    hamlet.delete(&format!("/messages/{gone}"), &[]).success();
    assert_eq!(found_in(&hamlet, &name, "ephemeral"), vec![kept]);
}

#[test]
fn search_results_highlight_the_matched_words() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-highlight");
    create_channel(&hamlet, &name, &[], &[]);
    send_to_channel(&hamlet, &name, "Running <late> & more", "We were **running** to [the run](https://example.com/run)");
    let body = search(&hamlet, json!([["channel", name], ["search", "run"]]));
    let m = &body["messages"][0];
    let content = m["content"].as_str().unwrap();
    // The link's address holds "run" too: only text is highlighted, never inside a tag.
    assert!(content.contains("<strong>running</strong>") && content.contains(">the run</a>"), "{content}");
    let expected = content
        .replace("<strong>running</strong>", "<strong><span class=\"highlight\">running</span></strong>")
        .replace(">the run</a>", ">the <span class=\"highlight\">run</span></a>");
    assert_eq!(m["match_content"], expected);
    assert_eq!(m["match_subject"], "<span class=\"highlight\">Running</span> &lt;late&gt; &amp; more");
}

#[test]
fn search_works_in_an_organization_of_the_second_database() {
    let king = lear("king@lear.org");
    let name = unique("search-lear");
    create_channel(&king, &name, &[], &[]);
    let hit = send_to_channel(&king, &name, "t", "storms rage on the heath");
    send_to_channel(&king, &name, "t", "calm weather");
    assert_eq!(found_in(&king, &name, "storm"), vec![hit]);
}

#[test]
fn several_search_terms_all_apply_and_a_negated_one_excludes() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("search-terms");
    create_channel(&hamlet, &name, &[], &[]);
    let both = send_to_channel(&hamlet, &name, "t", "green tea");
    let tea = send_to_channel(&hamlet, &name, "t", "black tea");
    send_to_channel(&hamlet, &name, "t", "green grass");
    assert_eq!(ids(&search(&hamlet, json!([["channel", name], ["search", "tea"], ["search", "green"]]))), vec![both]);
    let without_green = json!([["channel", name], ["search", "tea"], {"operator": "search", "operand": "green", "negated": true}]);
    assert_eq!(ids(&search(&hamlet, without_green)), vec![tea]);
}

/// What `GET /messages/matches_narrow` answers `client` for `ids` and `narrow`.
fn matches(client: &Client, ids: &[i64], narrow: Value) -> Value {
    let body = client.get("/messages/matches_narrow", &[("msg_ids", &json!(ids).to_string()), ("narrow", &narrow.to_string())]).success();
    assert_matches_openapi("get", "/messages/matches_narrow", &body);
    body["messages"].clone()
}

#[test]
fn matches_narrow_answers_which_messages_a_search_matches_with_highlights() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("matches-search");
    create_channel(&hamlet, &name, &[], &[]);
    let running = send_to_channel(&hamlet, &name, "<b>tea</b> time", "I was running late");
    let walking = send_to_channel(&hamlet, &name, "<b>tea</b> time", "a walk in the park");
    let found = matches(&hamlet, &[running, walking], json!([["channel", name], ["search", "run"]]));
    assert_eq!(found.as_object().unwrap().keys().collect::<Vec<_>>(), vec![&running.to_string()]);
    let fields = &found[running.to_string()];
    assert_eq!(fields["match_content"], "<p>I was <span class=\"highlight\">running</span> late</p>");
    assert_eq!(fields["match_subject"], "&lt;b&gt;tea&lt;/b&gt; time");
}

#[test]
fn matches_narrow_without_a_search_answers_the_messages_as_rendered() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let name = unique("matches-topic");
    create_channel(&hamlet, &name, &[], &[]);
    let inside = send_to_channel(&hamlet, &name, "inside", "**bold** words");
    let outside = send_to_channel(&hamlet, &name, "outside", "other words");
    let found = matches(&hamlet, &[inside, outside], json!([["channel", name], ["topic", "inside"]]));
    assert_eq!(found, json!({ inside.to_string(): { "match_content": "<p><strong>bold</strong> words</p>", "match_subject": "inside" } }));
}

#[test]
fn matches_narrow_leaves_out_messages_the_caller_did_not_receive() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let othello = Client::dev("othello@zulip.com");
    let cordelia = Client::dev("cordelia@zulip.com");
    let private = send_direct(&hamlet, &[othello.user_id], "between two");
    assert_eq!(matches(&cordelia, &[private], json!([])), json!({}));
    assert_eq!(matches(&othello, &[private], json!([]))[private.to_string()]["match_content"], "<p>between two</p>");
}
