//! Unicode emoji names the server knows without an emoji database: Zulip's names of common
//! reaction emoji and their code points (dash-separated hex, as `emoji_code`).

/// (name, code) pairs, Zulip's names.
pub const UNICODE_EMOJI: &[(&str, &str)] = &[
    ("+1", "1f44d"), ("thumbs_up", "1f44d"), ("-1", "1f44e"), ("thumbs_down", "1f44e"),
    ("smile", "1f604"), ("smiley", "1f603"), ("grinning", "1f600"), ("laughing", "1f606"), ("joy", "1f602"),
    ("slight_smile", "1f642"), ("wink", "1f609"), ("heart", "2764"), ("heart_eyes", "1f60d"),
    ("tada", "1f389"), ("octopus", "1f419"), ("thinking", "1f914"), ("cry", "1f622"), ("sob", "1f62d"),
    ("angry", "1f620"), ("fire", "1f525"), ("rocket", "1f680"), ("eyes", "1f440"), ("clap", "1f44f"),
    ("pray", "1f64f"), ("ok", "1f197"), ("check", "2714"), ("check_mark", "2714"), ("cross_mark", "274c"),
    ("star", "2b50"), ("100", "1f4af"), ("wave", "1f44b"), ("working_on_it", "1f6e0"), ("zulip", "zulip"),
    ("muscle", "1f4aa"), ("sunglasses", "1f60e"), ("confused", "1f615"), ("upside_down", "1f643"),
    ("hourglass", "231b"), ("question", "2753"), ("exclamation", "2757"), ("coffee", "2615"),
    ("sparkles", "2728"), ("party_popper", "1f389"), ("cake", "1f370"), ("pizza", "1f355"),
    ("cat", "1f431"), ("dog", "1f436"), ("unicorn", "1f984"), ("robot", "1f916"), ("ghost", "1f47b"),
];

pub fn code_for_name(name: &str) -> Option<&'static str> {
    UNICODE_EMOJI.iter().find(|(n, _)| *n == name).map(|(_, c)| *c)
}

/// A unicode `emoji_code`: dash-separated lowercase hex code points.
pub fn is_valid_unicode_code(code: &str) -> bool {
    !code.is_empty()
        && code.split('-').all(|part| !part.is_empty() && part.len() <= 6 && part.chars().all(|c| c.is_ascii_hexdigit()))
}
