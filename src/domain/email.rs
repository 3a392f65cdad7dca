//! Outgoing email: the message every mailer builds (text and HTML bodies), the templates
//! of the emails this server sends, the provider's request body and the retry schedule.
//!
//! Provider: a JSON POST in Resend's style (`POST EMAIL_API_URL`, `Authorization: Bearer
//! EMAIL_API_KEY`, body `{from, to, reply_to, subject, text, html}`). Why: a Worker can
//! make HTTPS requests but cannot speak SMTP, and Cloudflare's `send_email` binding only
//! reaches verified addresses, which invitations are not; a JSON API is one `fetch` per
//! message, and its `Idempotency-Key` header makes a retried hand-over send once.
//! Postmark, SendGrid and Mailgun take the same fields with other names; only
//! [`provider_body`] would change.

use serde_json::{json, Value};

pub use crate::model::email::OutgoingEmail;

/// `From` and `Reply-To` of every message (the `EMAIL_FROM` / `EMAIL_REPLY_TO` settings).
#[derive(Debug, Clone)]
pub struct Sender {
    pub from: String,
    pub reply_to: Option<String>,
}

/// The provider's JSON body for one message.
pub fn provider_body(sender: &Sender, email: &OutgoingEmail) -> Value {
    let mut body = json!({
        "from": sender.from,
        "to": [email.to],
        "subject": email.subject,
        "text": email.text,
        "html": email.html,
    });
    if let Some(reply_to) = &sender.reply_to {
        body["reply_to"] = json!(reply_to);
    }
    body
}

/// Hand-overs are retried with growing pauses (1, 2, 4 ... minutes, at most an hour);
/// answers when the next attempt after `attempts` failures is due.
pub fn next_attempt_at(now: i64, attempts: i64) -> i64 {
    let minutes = 1i64 << attempts.clamp(0, 6);
    now + (minutes * 60).min(3600)
}

/// After this many failures a message is given up (about a day of retries).
pub const MAX_ATTEMPTS: i64 = 30;

/// Text made safe inside HTML.
pub use crate::markdown::escape_html;

/// A message made of paragraphs and one call to action (a link), in both bodies.
fn with_link(to: &str, subject: String, paragraphs: &[String], link_text: &str, url: &str, footer: &str) -> OutgoingEmail {
    let mut text = paragraphs.join("\n\n");
    text.push_str(&format!("\n\n{link_text}:\n{url}\n\n{footer}\n"));
    let mut html = String::from("<html><body>");
    for p in paragraphs {
        html.push_str(&format!("<p>{}</p>", escape_html(p)));
    }
    html.push_str(&format!("<p><a href=\"{}\">{}</a></p>", escape_html(url), escape_html(link_text)));
    html.push_str(&format!("<p><small>{}</small></p></body></html>", escape_html(footer)));
    OutgoingEmail { to: to.to_string(), subject, text, html }
}

/// The invitation to join an organization.
pub fn invitation(to: &str, referrer_name: &str, realm_name: &str, url: &str, expires_in_days: Option<i64>) -> OutgoingEmail {
    let expiry = match expires_in_days {
        Some(days) => format!("This invitation expires in {days} day(s)."),
        None => "This invitation does not expire.".to_string(),
    };
    with_link(
        to,
        format!("{referrer_name} invited you to join {realm_name}"),
        &[format!("{referrer_name} wants you to join them on {realm_name}, a team chat."), expiry],
        "Join now",
        url,
        "If you do not want to join, ignore this email.",
    )
}

/// The confirmation mailed to an address that asked to join (reusable link or open
/// organization): following it proves the address.
pub fn signup_confirmation(to: &str, realm_name: &str, url: &str) -> OutgoingEmail {
    with_link(
        to,
        format!("Activate your account on {realm_name}"),
        &[format!("Someone (hopefully you) asked to join {realm_name} with this email address.")],
        "Complete your sign-up",
        url,
        "If you did not ask for this, ignore this email.",
    )
}

/// The "forgot password" link.
pub fn password_reset(to: &str, realm_name: &str, url: &str, valid_minutes: i64) -> OutgoingEmail {
    with_link(
        to,
        format!("Reset your password for {realm_name}"),
        &[
            format!("Someone (hopefully you) asked to reset the password of {to} on {realm_name}."),
            format!("The link works once, within {valid_minutes} minutes."),
        ],
        "Set a new password",
        url,
        "If you did not ask for this, ignore this email: your password stays as it is.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn provider_body_carries_both_bodies_and_reply_to() {
        let sender = Sender { from: "Chat <noreply@example.com>".into(), reply_to: Some("help@example.com".into()) };
        let email = OutgoingEmail { to: "a@b.co".into(), subject: "Hi".into(), text: "t".into(), html: "<p>h</p>".into() };
        let body = provider_body(&sender, &email);
        assert_eq!(body["to"], json!(["a@b.co"]));
        assert_eq!(body["text"], "t");
        assert_eq!(body["html"], "<p>h</p>");
        assert_eq!(body["reply_to"], "help@example.com");
        let plain = provider_body(&Sender { reply_to: None, ..sender }, &email);
        assert!(plain.get("reply_to").is_none());
    }

    #[test]
    fn retries_back_off_up_to_an_hour() {
        assert_eq!(next_attempt_at(1000, 0), 1060);
        assert_eq!(next_attempt_at(1000, 1), 1120);
        assert_eq!(next_attempt_at(1000, 3), 1480);
        assert_eq!(next_attempt_at(1000, 20), 4600);
    }

    #[test]
    fn templates_escape_names_in_html() {
        let email = invitation("x@y.co", "<b>Iago</b>", "Zulip & co", "https://z/join/abc/", Some(10));
        assert!(email.html.contains("&lt;b&gt;Iago&lt;/b&gt;"));
        assert!(email.text.contains("https://z/join/abc/"));
        assert!(email.html.contains("href=\"https://z/join/abc/\""));
        assert_eq!(email.subject, "<b>Iago</b> invited you to join Zulip & co");
    }
}
