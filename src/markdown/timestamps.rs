//! Zulip's global times, `<time:...>`: rendered as `<time datetime="...Z">typed text</time>`
//! so each client shows it in the reader's time zone, or as Zulip's error span when the
//! text is not a time.
//!
//! Zulip parses with `dateutil` (very lenient). We accept what clients insert and what
//! people commonly type: ISO 8601 (`2024-03-01T10:00:00+05:30`), Unix seconds, and dates
//! like `31 Dec 2017`, `Jun 5th 2017, 10:30PM`, `Dec 31, 2017 5:30 am IST`. Times without
//! a zone are UTC, as in Zulip. A date must be complete (dateutil would fill missing
//! parts from today's date, which a pure renderer cannot know).

use super::html;

/// The HTML for `<time:input>`.
pub fn html(input: &str) -> String {
    match parse(input) {
        Some(instant) => format!("<time datetime=\"{}\">{}</time>", instant.iso(), html::text(input)),
        None => format!("<span class=\"timestamp-error\">Invalid time format: {}</span>", html::text(input)),
    }
}

/// Finds Zulip's `<time:(?P<time>[^>]*?)>` in text: (before, input, after).
pub fn split(text: &str) -> Option<(&str, &str, &str)> {
    let start = text.find("<time:")?;
    let input_start = start + "<time:".len();
    let input_len = text[input_start..].find('>')?;
    let end = input_start + input_len;
    Some((&text[..start], &text[input_start..end], &text[end + 1..]))
}

/// A UTC instant: seconds since the Unix epoch and microseconds.
#[derive(Debug, PartialEq, Eq)]
struct Instant {
    seconds: i64,
    micros: u32,
}

impl Instant {
    fn iso(&self) -> String {
        let days = self.seconds.div_euclid(86_400);
        let secs = self.seconds.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        let mut out = format!("{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}", secs / 3600, secs % 3600 / 60, secs % 60);
        if self.micros > 0 {
            out.push_str(&format!(".{:06}", self.micros));
        }
        out.push('Z');
        out
    }
}

fn parse(input: &str) -> Option<Instant> {
    let input = input.trim();
    parse_iso(input).or_else(|| parse_words(input)).or_else(|| parse_unix(input))
}

/// `YYYY-MM-DD[(T| )hh:mm[:ss[.frac]]][Z|±hh[:]mm]`
fn parse_iso(input: &str) -> Option<Instant> {
    let b = input.as_bytes();
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (year, month, day) = (number(&input[..4])?, number(&input[5..7])?, number(&input[8..10])?);
    let rest = &input[10..];
    let (clock, zone) = match rest.strip_prefix(['T', ' ']) {
        Some(time) => {
            let zone_at = time.find(['Z', '+', '-']).unwrap_or(time.len());
            (parse_clock(&time[..zone_at])?, &time[zone_at..])
        }
        None if rest.is_empty() => (Clock::default(), ""),
        None => return None,
    };
    let offset = if zone.is_empty() { 0 } else { parse_offset(zone)? };
    instant(year, month, day, &clock, offset)
}

/// Unix seconds, possibly fractional (Zulip's fallback).
fn parse_unix(input: &str) -> Option<Instant> {
    let (whole, fraction) = input.split_once('.').unwrap_or((input, ""));
    let negative = whole.starts_with('-');
    let digits = whole.trim_start_matches('-');
    if digits.is_empty() || digits.len() > 12 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if !fraction.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let seconds: i64 = digits.parse().ok()?;
    let micros = format!("{fraction:0<6}")[..6].parse::<u32>().ok()?;
    let seconds = if negative { -seconds } else { seconds };
    let (seconds, micros) = if negative && micros > 0 { (seconds - 1, 1_000_000 - micros) } else { (seconds, micros) };
    // Python's datetime covers years 1 to 9999.
    (-62_135_596_800..=253_402_300_799).contains(&seconds).then_some(Instant { seconds, micros })
}

#[derive(Default)]
struct Clock {
    hour: i64,
    minute: i64,
    second: i64,
    micros: u32,
}

/// `hh:mm[:ss[.frac]]`
fn parse_clock(text: &str) -> Option<Clock> {
    let mut parts = text.split(':');
    let hour = number(parts.next()?)?;
    let minute = number(parts.next()?)?;
    let (second, micros) = match parts.next() {
        Some(s) => {
            let (whole, fraction) = s.split_once('.').unwrap_or((s, ""));
            let micros = if fraction.is_empty() { 0 } else { format!("{fraction:0<6}")[..6].parse().ok()? };
            (number(whole)?, micros)
        }
        None => (0, 0),
    };
    if parts.next().is_some() || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    Some(Clock { hour, minute, second, micros })
}

/// `Z`, `±hh`, `±hhmm`, `±hh:mm`: seconds east of UTC.
fn parse_offset(zone: &str) -> Option<i64> {
    if zone == "Z" {
        return Some(0);
    }
    let sign = match zone.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
    let (hours, minutes) = match digits.len() {
        2 => (number(&digits)?, 0),
        4 => (number(&digits[..2])?, number(&digits[2..])?),
        _ => return None,
    };
    (hours <= 14 && minutes < 60).then_some(sign * (hours * 3600 + minutes * 60))
}

/// Dates written out: every word must be a month, day, year, time, am/pm or zone.
fn parse_words(input: &str) -> Option<Instant> {
    let (mut year, mut month, mut day) = (None, None, None);
    let mut clock: Option<Clock> = None;
    let mut pm: Option<bool> = None;
    let mut offset = 0;
    for word in input.split([' ', ',']).filter(|w| !w.is_empty()) {
        let lower = word.to_ascii_lowercase();
        let (body, meridiem) = split_meridiem(&lower);
        if meridiem.is_some() {
            pm = meridiem;
        }
        if body.is_empty() {
            continue;
        }
        if let Some(m) = month_number(body) {
            month = Some(month.map_or(Some(m), |_| None)?);
        } else if body.contains(':') {
            clock = Some(parse_clock(body)?);
        } else if let Some(zone) = zone_offset(body) {
            offset = zone;
        } else if body.len() == 4 && year.is_none() {
            year = Some(number(body)?);
        } else if day.is_none() {
            day = Some(number(strip_ordinal(body))?);
        } else {
            return None;
        }
    }
    let mut clock = clock.unwrap_or_default();
    match pm {
        Some(true) if clock.hour < 12 => clock.hour += 12,
        Some(false) if clock.hour == 12 => clock.hour = 0,
        _ => {}
    }
    instant(year?, month?, day?, &clock, offset)
}

/// `10:30pm` -> (`10:30`, pm); `am` -> (``, am).
fn split_meridiem(word: &str) -> (&str, Option<bool>) {
    if let Some(body) = word.strip_suffix("pm") {
        return (body, Some(true));
    }
    if let Some(body) = word.strip_suffix("am") {
        return (body, Some(false));
    }
    (word, None)
}

fn strip_ordinal(word: &str) -> &str {
    ["st", "nd", "rd", "th"].iter().find_map(|s| word.strip_suffix(s)).unwrap_or(word)
}

fn month_number(word: &str) -> Option<i64> {
    const MONTHS: [&str; 12] =
        ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
    let word = word.trim_end_matches('.');
    if word.len() < 3 {
        return None;
    }
    let index = MONTHS.iter().position(|m| m.starts_with(word) && (word.len() == 3 || *m == word || word == "sept"))?;
    Some(index as i64 + 1)
}

/// Common zone abbreviations (seconds east of UTC).
fn zone_offset(word: &str) -> Option<i64> {
    let hours = |h: i64, m: i64| h * 3600 + h.signum() * m * 60;
    Some(match word {
        "utc" | "gmt" | "z" => 0,
        "ist" => hours(5, 30),
        "cet" => hours(1, 0),
        "cest" => hours(2, 0),
        "eet" => hours(2, 0),
        "jst" => hours(9, 0),
        "est" => hours(-5, 0),
        "edt" => hours(-4, 0),
        "cst" => hours(-6, 0),
        "cdt" => hours(-5, 0),
        "mst" => hours(-7, 0),
        "mdt" => hours(-6, 0),
        "pst" => hours(-8, 0),
        "pdt" => hours(-7, 0),
        _ => return None,
    })
}

fn number(text: &str) -> Option<i64> {
    (!text.is_empty() && text.len() <= 4 && text.bytes().all(|b| b.is_ascii_digit())).then(|| text.parse().ok())?
}

/// The UTC instant of a local date and time at `offset` seconds east of UTC.
fn instant(year: i64, month: i64, day: i64, clock: &Clock, offset: i64) -> Option<Instant> {
    if !(1..=9999).contains(&year) || !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let local = days_from_civil(year, month, day) * 86_400 + clock.hour * 3600 + clock.minute * 60 + clock.second;
    Some(Instant { seconds: local - offset, micros: clock.micros })
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iso(input: &str) -> Option<String> {
        parse(input).map(|i| i.iso())
    }

    #[test]
    fn parses_the_forms_people_and_clients_write() {
        assert_eq!(iso("2024-03-01T10:00:00+05:30").as_deref(), Some("2024-03-01T04:30:00Z"));
        assert_eq!(iso("2024-03-01T10:00Z").as_deref(), Some("2024-03-01T10:00:00Z"));
        assert_eq!(iso("1496701800").as_deref(), Some("2017-06-05T22:30:00Z"));
        assert_eq!(iso("Jun 5th 2017, 10:30PM").as_deref(), Some("2017-06-05T22:30:00Z"));
        assert_eq!(iso("31 Dec 2017").as_deref(), Some("2017-12-31T00:00:00Z"));
        assert_eq!(iso("31 Dec 2017 5:30 am IST").as_deref(), Some("2017-12-31T00:00:00Z"));
        assert_eq!(iso("February 29, 2024 12:15 am").as_deref(), Some("2024-02-29T00:15:00Z"));
    }

    #[test]
    fn rejects_what_is_not_a_time() {
        for input in ["<alert(1)", "**hello world**", "Feb 30 2023", "tomorrow", "", "2024-13-01"] {
            assert_eq!(iso(input), None, "{input}");
        }
    }
}
