use super::table::{EMOJI, NAMES};
use super::*;

#[test]
fn canonical_names_map_to_zulip_codes() {
    assert_eq!(code_for_name("smile"), Some("1f642"));
    assert_eq!(code_for_name("big_smile"), Some("1f604"));
    assert_eq!(code_for_name("heart"), Some("2764"));
    assert_eq!(code_for_name("tada"), Some("1f389"));
    assert_eq!(code_for_name("octopus"), Some("1f419"));
    assert_eq!(code_for_name("+1"), Some("1f44d"));
    assert_eq!(code_for_name("holiday_tree"), Some("1f384"));
    assert_eq!(code_for_name("woman_shrugging"), Some("1f937-200d-2640"));
    assert_eq!(code_for_name("hash"), Some("0023-20e3"));
}

#[test]
fn aliases_map_to_the_same_code() {
    assert_eq!(code_for_name("thumbs_up"), Some("1f44d"));
    assert_eq!(code_for_name("like"), Some("1f44d"));
    assert_eq!(code_for_name("gold"), Some("1f947"));
    assert_eq!(code_for_name("flag_turkiye"), code_for_name("flag_türkiye"));
}

#[test]
fn unknown_names_have_no_code() {
    for name in ["", "fakeemojithisshouldnotrender", "fried_egg", "man-girl-girl", "zulip", "Smile", ":smile:"] {
        assert_eq!(code_for_name(name), None, "{name}");
    }
}

#[test]
fn codes_map_back_to_the_canonical_name() {
    assert_eq!(name_for_code("1f44d"), Some("+1"));
    assert_eq!(name_for_code("1f642"), Some("smile"));
    assert_eq!(name_for_code("1f441-200d-1f5e8"), Some("eye_in_speech_bubble"));
    assert_eq!(name_for_code("1f947"), Some("first_place"));
}

#[test]
fn known_codes_are_exactly_the_table() {
    assert!(is_known_code("1f419"));
    assert!(is_known_code("2b06"));
    for code in ["", "1F419", "2b06-fe0f", "1f44d-1f3fd", "1f426-200d-1f525", "zulip", "u1f419"] {
        assert!(!is_known_code(code), "{code}");
    }
}

#[test]
fn names_for_code_lists_canonical_first() {
    assert_eq!(names_for_code("1f44d"), vec!["+1", "like", "thumbs_up"]);
    assert!(names_for_code("ffff").is_empty());
}

#[test]
fn every_name_round_trips_through_its_code() {
    for (name, index) in NAMES {
        let code = code_for_name(name).expect(name);
        assert_eq!(code, EMOJI[usize::from(*index)].0);
        assert!(is_known_code(code));
    }
    for (code, canonical) in EMOJI {
        assert_eq!(code_for_name(canonical), Some(*code), "{canonical}");
    }
}

#[test]
fn tables_are_sorted_for_binary_search() {
    assert!(EMOJI.windows(2).all(|w| w[0].0 < w[1].0));
    assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
}

#[test]
fn codes_are_lowercase_dash_separated_hex() {
    for (code, _) in EMOJI {
        assert!(
            code.split('-').all(|part| part.len() >= 4 && part.chars().all(|c| c.is_ascii_digit() || ('a'..='f').contains(&c))),
            "{code}"
        );
    }
}

#[test]
fn code_of_drops_variation_selectors() {
    assert_eq!(code_of("💩"), "1f4a9");
    assert_eq!(code_of("⬆️"), "2b06");
    assert_eq!(code_of("#️⃣"), "0023-20e3");
    assert_eq!(code_of("🤷‍♀️"), "1f937-200d-2640");
}

fn found(text: &str) -> Vec<(&str, &'static str)> {
    find_emoji(text).into_iter().map(|m| (&text[m.start..m.end], m.name)).collect()
}

#[test]
fn finds_emoji_presentation_characters() {
    assert_eq!(found("I am a robot 🤖."), vec![("🤖", "robot")]);
    assert_eq!(found("⚓➗"), vec![("⚓", "anchor"), ("➗", "division")]);
    assert_eq!(found("Extra👽Terrestrial"), vec![("👽", "alien")]);
}

#[test]
fn text_default_characters_need_variation_selector() {
    assert_eq!(found("Black upward arrow ⬆️"), vec![("⬆️", "up")]);
    assert!(found("arrow ⬆ alone, © 2024, ↔, 1 2 3, #").is_empty());
    assert_eq!(found("❤️ and ❤"), vec![("❤️", "heart")]);
}

#[test]
fn keycaps_and_zwj_sequences_match_whole() {
    assert_eq!(found("👁‍🗨 #️⃣"), vec![("👁‍🗨", "eye_in_speech_bubble"), ("#️⃣", "hash")]);
    assert_eq!(found("🤷‍♀️"), vec![("🤷‍♀️", "woman_shrugging")]);
}

#[test]
fn unknown_sequences_stay_out_whole() {
    assert!(found("🐦‍🔥").is_empty());
    assert!(found("🧑🏽‍🛴‍↩️").is_empty());
    assert!(found("👨🏿‍🦽").is_empty());
    assert!(found("👍🏽").is_empty());
    assert_eq!(found("normal lemon 🍋, purple lemon? 🍋‍🟪"), vec![("🍋", "lemon")]);
}

#[test]
fn flags_are_regional_indicator_pairs() {
    assert_eq!(found("🇹🇷🇩🇪"), vec![("🇹🇷", "flag_türkiye"), ("🇩🇪", "flag_germany")]);
    assert!(found("🇹").is_empty());
}

#[test]
fn ascii_text_has_no_unicode_emoji() {
    assert!(found("plain :smile: 123 #*").is_empty());
}

#[test]
fn code_to_names_agrees_with_names_for_code() {
    let all = code_to_names();
    for code in ["1f642", "1f44d", "1f604"] {
        assert_eq!(all[code], names_for_code(code), "{code}");
    }
}
