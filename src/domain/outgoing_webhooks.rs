//! Outgoing-webhook bots (`bot_type` 3), the pure rules: which messages trigger one, the
//! request each interface sends (Zulip's JSON, or Slack's form fields), what an answer
//! asks to post back, where a request may go, when to retry, and the texts Zulip uses to
//! report a failure (zerver/lib/outgoing_webhook.py).

use std::collections::BTreeSet;
use std::net::{Ipv4Addr, Ipv6Addr};

use serde_json::{json, Value};

use crate::db::bot_services::BotServiceRow;
use crate::db::users::UserRow;
use crate::model::ids::{RealmId, UserId};

/// `interface` 1: Zulip's JSON payload.
pub const ZULIP_INTERFACE: i64 = 1;
/// `interface` 2: Slack's outgoing-webhook form fields.
pub const SLACK_INTERFACE: i64 = 2;
pub const INTERFACES: &[i64] = &[ZULIP_INTERFACE, SLACK_INTERFACE];

/// Zulip's `OUTGOING_WEBHOOK_TIMEOUT_SECONDS`.
pub const TIMEOUT_SECONDS: u64 = 10;
/// Zulip's `MAX_REQUEST_RETRIES`: a timeout or connection error is tried again this many
/// times before the bot is reported unavailable.
pub const MAX_RETRIES: i64 = 3;

/// The bot type that calls a service.
pub const OUTGOING_WEBHOOK_BOT: i64 = 3;

/// A bot's `services` as Zulip shows them: an outgoing-webhook bot's URL, interface and
/// token.
pub fn services_dicts(services: &[BotServiceRow]) -> Vec<Value> {
    services.iter().map(|s| json!({ "base_url": s.base_url, "interface": s.interface, "token": s.token })).collect()
}

/// Zulip's `get_service_bot_events`: a message from a person triggers each outgoing-webhook
/// bot it mentions personally (channel messages: `mention`) or sends to (direct messages:
/// `direct_message`). Bots' messages trigger nothing, so two bots cannot loop.
/// `mentioned`: the users the rendering mentions; `mentionable_bots`: the outgoing-webhook
/// bots among the users the content names; `dm_recipients`: the direct message's users.
pub fn triggers(
    sender: &UserRow,
    is_channel: bool,
    mentioned: &BTreeSet<i64>,
    mentionable_bots: &[i64],
    dm_recipients: &[UserRow],
) -> Vec<(i64, &'static str)> {
    if sender.is_bot() {
        return Vec::new();
    }
    if is_channel {
        let bots: BTreeSet<i64> = mentionable_bots.iter().copied().filter(|id| mentioned.contains(id)).collect();
        return bots.into_iter().map(|id| (id, "mention")).collect();
    }
    dm_recipients
        .iter()
        .filter(|u| u.bot_type == Some(OUTGOING_WEBHOOK_BOT) && u.is_active() && u.id != sender.id)
        .map(|u| (u.id, "direct_message"))
        .collect()
}

/// The message as the payload shows it (Zulip's `apply_markdown=False` with the rendering
/// kept): the Markdown source as `content`, the HTML as `rendered_content`.
pub fn payload_message(event_message: &Value, raw_content: &str) -> Value {
    let mut message = event_message.clone();
    if let Value::Object(map) = &mut message {
        let html = map.remove("content").unwrap_or(Value::Null);
        map.insert("rendered_content".into(), html);
        map.insert("content".into(), json!(raw_content));
        map.insert("content_type".into(), json!("text/x-markdown"));
        map.remove("flags");
    }
    message
}

/// Zulip's JSON payload.
pub fn zulip_payload(bot: &UserRow, token: &str, trigger: &str, message: &Value) -> Value {
    json!({
        "data": message["content"],
        "message": message,
        "bot_email": bot.email,
        "bot_full_name": bot.full_name,
        "token": token,
        "trigger": trigger,
    })
}

/// Slack's outgoing-webhook form fields, as Zulip fills them; `None` for a direct message,
/// which Slack's format cannot describe.
pub fn slack_form(bot_id: UserId, token: &str, trigger: &str, realm_id: RealmId, realm_host: &str, message: &Value) -> Option<String> {
    if message["type"] != "stream" {
        return None;
    }
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let timestamp = text(&message["timestamp"]);
    let fields = [
        ("token", token.to_string()),
        ("team_id", format!("T{realm_id}")),
        ("team_domain", realm_host.to_string()),
        ("channel_id", format!("C{}", text(&message["stream_id"]))),
        ("channel_name", text(&message["display_recipient"])),
        ("thread_ts", timestamp.clone()),
        ("timestamp", timestamp),
        ("user_id", format!("U{}", text(&message["sender_id"]))),
        ("user_name", text(&message["sender_full_name"])),
        ("text", text(&message["content"])),
        ("trigger_word", trigger.to_string()),
        ("service_id", bot_id.to_string()),
    ];
    Some(form_urlencoded::Serializer::new(String::new()).extend_pairs(fields).finish())
}

/// What a 2xx answer asks for.
#[derive(Debug, PartialEq, Eq)]
pub enum Answer {
    /// Post this as the bot's reply.
    Reply(String),
    /// Post nothing.
    Nothing,
    /// The answer cannot be used: Zulip's message for it.
    Invalid(&'static str),
}

/// Reads a 2xx answer as Zulip's `process_success_response` does.
pub fn read_answer(interface: i64, body: &str) -> Answer {
    let Ok(json) = serde_json::from_str::<Value>(body) else { return Answer::Invalid("Invalid JSON in response") };
    // Zulip's botserver once answered `""` for "no response required".
    if json == json!("") {
        return Answer::Nothing;
    }
    let Value::Object(map) = json else { return Answer::Invalid("Invalid response format") };
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let content = if interface == SLACK_INTERFACE {
        map.get("text").map(text)
    } else if map.get("response_not_required").is_some_and(|v| v.as_bool() == Some(true)) {
        None
    } else {
        map.get("response_string").or_else(|| map.get("content")).map(text)
    };
    match content {
        Some(content) if !content.trim().is_empty() => Answer::Reply(content),
        _ => Answer::Nothing,
    }
}

/// Whether a request may go to `url`'s host, read literally (name or address, after the
/// URL parser's normalisation, so `0x7f.1` is `127.0.0.1`): never a private, link-local or
/// unspecified address; loopback (and `localhost`) only when `allow_loopback`
/// (development and tests). A name's DNS answer cannot be checked here.
pub fn destination_allowed(url: &str, allow_loopback: bool) -> bool {
    let Ok(parsed) = worker::Url::parse(url) else { return false };
    if !matches!(parsed.scheme(), "http" | "https") {
        return false;
    }
    match parsed.host() {
        Some(worker::url::Host::Ipv4(ip)) => ipv4_allowed(ip, allow_loopback),
        Some(worker::url::Host::Ipv6(ip)) => ipv6_allowed(ip, allow_loopback),
        Some(worker::url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            let local = name == "localhost" || name.ends_with(".localhost");
            !local || allow_loopback
        }
        None => false,
    }
}

fn ipv4_allowed(ip: Ipv4Addr, allow_loopback: bool) -> bool {
    let [a, b, ..] = ip.octets();
    let shared = a == 100 && (64..128).contains(&b);
    if ip.is_loopback() {
        return allow_loopback;
    }
    !(ip.is_private() || ip.is_link_local() || ip.is_unspecified() || ip.is_broadcast() || shared || a == 0)
}

fn ipv6_allowed(ip: Ipv6Addr, allow_loopback: bool) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return ipv4_allowed(v4, allow_loopback);
    }
    if ip.is_loopback() {
        return allow_loopback;
    }
    let first = ip.segments()[0];
    let unique_local = first & 0xfe00 == 0xfc00;
    let link_local = first & 0xffc0 == 0xfe80;
    !(ip.is_unspecified() || unique_local || link_local)
}

/// When a delivery that failed `attempts` times before this failure is tried again:
/// after 1, 2, then 4 seconds.
pub fn retry_at(now: i64, attempts: i64) -> i64 {
    now + (1i64 << attempts.clamp(0, 6))
}

/// Zulip's link to a message (`near_message_url`).
pub fn message_url(base_url: &str, message: &Value) -> String {
    let id = message["id"].as_i64().unwrap_or_default();
    let channel = match (message["stream_id"].as_i64(), message["display_recipient"].as_str()) {
        (Some(channel_id), Some(channel)) => Some((channel_id, channel, message["subject"].as_str().unwrap_or_default())),
        _ => None,
    };
    let participants: Vec<i64> = message["display_recipient"].as_array().into_iter().flatten().filter_map(|r| r["id"].as_i64()).collect();
    crate::domain::message_edit::near_message_url(base_url, id, channel, &participants)
}

/// Why a delivery failed, as Zulip tells the bot's owner.
pub enum Failure<'a> {
    /// The service answered with a status outside 2xx (407: the URL was refused).
    Status(u16, &'a str),
    /// A 2xx answer that cannot be used.
    BadAnswer(&'static str, &'a str),
    /// Timeouts or connection errors, retried until given up.
    Unavailable(&'a str),
}

/// The message to the conversation, from the bot (Zulip's `fail_with_message`).
pub fn conversation_notice(failure: &Failure<'_>) -> String {
    match failure {
        Failure::Status(status, _) => format!("Failure! Third party responded with {status}"),
        Failure::BadAnswer(reason, _) => format!("Failure! {reason}"),
        Failure::Unavailable(_) => "Failure! Bot is unavailable".to_string(),
    }
}

/// The direct message to the bot's owner, from the bot (Zulip's `notify_bot_owner`).
pub fn owner_notice(message_url: &str, bot_full_name: &str, failure: &Failure<'_>) -> String {
    let mut text = format!("[A message]({message_url}) to your bot @_**{bot_full_name}** triggered an outgoing webhook.");
    let payload = match failure {
        Failure::Unavailable(reason) => {
            text.push_str(&format!("\n{reason}"));
            None
        }
        Failure::BadAnswer(reason, body) => {
            text.push_str(&format!(
                "\nThe outgoing webhook server attempted to send a message in Zulip, but that request resulted in the following error:\n> {reason}"
            ));
            Some(python_repr(body, false))
        }
        Failure::Status(407, body) => {
            text.push_str("\nThe URL configured for the webhook is for a private or disallowed network.");
            Some(python_repr(body, true))
        }
        Failure::Status(status, body) => {
            text.push_str(&format!("\nThe webhook got a response with status code *{status}*."));
            Some(python_repr(body, true))
        }
    };
    if let Some(payload) = payload.filter(|_| !matches!(failure, Failure::Status(_, "") | Failure::BadAnswer(_, ""))) {
        text.push_str(&format!("\nThe response contains the following payload:\n```\n{payload}\n```"));
    }
    text
}

/// Python's `repr` of the answer's body, which Zulip's notice shows (`bytes`: `b'…'`).
fn python_repr(text: &str, bytes: bool) -> String {
    let quote = if text.contains('\'') && !text.contains('"') { '"' } else { '\'' };
    let mut out = String::from(if bytes { "b" } else { "" });
    out.push(quote);
    let push_byte = |out: &mut String, b: u8| out.push_str(&format!("\\x{b:02x}"));
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f => push_byte(&mut out, c as u8),
            c if bytes && !c.is_ascii() => {
                let mut buf = [0u8; 4];
                for b in c.encode_utf8(&mut buf).bytes() {
                    push_byte(&mut out, b);
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_private_and_link_local_hosts_are_refused_in_production() {
        for url in [
            "http://127.0.0.1:9000/",
            "http://localhost/x",
            "http://LOCALHOST./",
            "http://0x7f.1/",
            "http://2130706433/",
            "http://10.1.2.3/",
            "http://172.16.0.1/",
            "http://192.168.1.1/",
            "http://169.254.169.254/latest/meta-data",
            "http://0.0.0.0/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[fe80::1]/",
            "http://[fd00::1]/",
            "ftp://example.com/",
            "not a url",
        ] {
            assert!(!destination_allowed(url, false), "{url}");
        }
        assert!(destination_allowed("https://bots.example.com/hook", false));
        assert!(destination_allowed("http://93.184.216.34/", false));
    }

    #[test]
    fn development_allows_loopback_only() {
        assert!(destination_allowed("http://127.0.0.1:9000/", true));
        assert!(destination_allowed("http://localhost:9000/", true));
        assert!(destination_allowed("http://[::1]:9000/", true));
        assert!(!destination_allowed("http://10.0.0.1/", true));
        assert!(!destination_allowed("http://169.254.169.254/", true));
    }

    #[test]
    fn answers_are_read_as_zulip_reads_them() {
        assert_eq!(read_answer(ZULIP_INTERFACE, r#"{"content": "hi"}"#), Answer::Reply("hi".into()));
        assert_eq!(read_answer(ZULIP_INTERFACE, r#"{"response_string": "old"}"#), Answer::Reply("old".into()));
        assert_eq!(read_answer(ZULIP_INTERFACE, r#"{"response_not_required": true, "content": "x"}"#), Answer::Nothing);
        assert_eq!(read_answer(ZULIP_INTERFACE, r#"{"content": "  "}"#), Answer::Nothing);
        assert_eq!(read_answer(ZULIP_INTERFACE, r#""""#), Answer::Nothing);
        assert_eq!(read_answer(ZULIP_INTERFACE, "[1]"), Answer::Invalid("Invalid response format"));
        assert_eq!(read_answer(ZULIP_INTERFACE, "<html>"), Answer::Invalid("Invalid JSON in response"));
        assert_eq!(read_answer(SLACK_INTERFACE, r#"{"text": "from slack"}"#), Answer::Reply("from slack".into()));
        assert_eq!(read_answer(SLACK_INTERFACE, r#"{"content": "ignored"}"#), Answer::Nothing);
    }

    #[test]
    fn owner_notices_use_zulips_wording() {
        let notice = owner_notice("http://x/#narrow/near/5", "Echo", &Failure::Status(500, "{\"error\": \"boom\"}"));
        assert_eq!(
            notice,
            "[A message](http://x/#narrow/near/5) to your bot @_**Echo** triggered an outgoing webhook.\n\
             The webhook got a response with status code *500*.\n\
             The response contains the following payload:\n```\nb'{\"error\": \"boom\"}'\n```"
        );
        let notice = owner_notice("u", "Echo", &Failure::Unavailable("A connection error occurred. Is my bot server down?"));
        assert!(notice.ends_with("triggered an outgoing webhook.\nA connection error occurred. Is my bot server down?"));
        assert_eq!(python_repr("it's", true), "b\"it's\"");
        assert_eq!(python_repr("é\n", true), "b'\\xc3\\xa9\\n'");
    }

    fn user(id: i64, bot_type: Option<i64>) -> UserRow {
        UserRow { id, is_active: 1, is_bot: bot_type.is_some() as i64, bot_type, ..UserRow::default() }
    }

    #[test]
    fn mentions_in_channels_and_direct_messages_trigger_outgoing_webhook_bots_of_people_only() {
        let mentioned = BTreeSet::from([5, 6]);
        assert_eq!(triggers(&user(1, None), true, &mentioned, &[5, 7], &[]), vec![(5, "mention")]);
        let dm = [user(1, None), user(5, Some(3)), user(6, Some(1))];
        assert_eq!(triggers(&user(1, None), false, &mentioned, &[5], &dm), vec![(5, "direct_message")]);
        assert!(triggers(&user(9, Some(1)), true, &mentioned, &[5], &[]).is_empty(), "a bot's message triggers nothing");
    }

    #[test]
    fn retries_back_off() {
        assert_eq!([retry_at(100, 0), retry_at(100, 1), retry_at(100, 2)], [101, 102, 104]);
    }
}
