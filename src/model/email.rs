//! An outgoing email, as `domain::email` composes it and `db::email_outbox` keeps it.

/// One message to one recipient.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingEmail {
    pub to: String,
    pub subject: String,
    pub text: String,
    pub html: String,
}
