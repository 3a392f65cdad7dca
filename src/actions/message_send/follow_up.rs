//! What a committed message sets off for its recipients, beyond its events: push
//! notifications, missed-message emails and outgoing webhooks. One owned job, made when
//! the message committed, whoever sent it (a user, a scheduled message falling due, the
//! notification bot, a bot's reply), and started by [`FollowUp::start`]: after the response
//! in a request, awaited outside one. None of it can fail the send: each part logs and
//! counts its own failure (`crate::actions::background_failures`).

use serde_json::Value;

use super::SentMessage;
use crate::actions::missed_message_emails::{self, MailedMessage};
use crate::actions::push::{self, MessageNoticeJob};
use crate::actions::site::Site;
use crate::db::users::UserRow;

/// A message's follow-up work.
pub struct FollowUp {
    site: Site,
    sender: UserRow,
    mailed: MailedMessage,
    /// False when no recipient but the sender has a push device.
    may_notify_push: bool,
    /// (bot id, trigger) of each outgoing-webhook bot the message triggers, with the
    /// message as their payload shows it.
    webhooks: Option<(Vec<(i64, &'static str)>, Value)>,
}

impl FollowUp {
    /// A sent message's: every recipient Zulip's rules say to notify, and its webhooks.
    pub fn of_send(site: Site, sender: &UserRow, sent: &SentMessage) -> FollowUp {
        FollowUp {
            site,
            sender: sender.clone(),
            mailed: MailedMessage::of(sent),
            may_notify_push: sent.may_notify_push,
            webhooks: sent.webhook_message.clone().map(|message| (sent.webhook_triggers.clone(), message)),
        }
    }

    /// An edit's: only the users it newly mentions, notified as for a new message that
    /// mentions them (Zulip calls no webhook for an edit).
    pub fn of_edit(site: Site, editor: &UserRow, message_id: i64, newly_mentioned: Vec<i64>) -> FollowUp {
        FollowUp {
            site,
            sender: editor.clone(),
            may_notify_push: !newly_mentioned.is_empty(),
            mailed: MailedMessage { id: message_id, followed_by_mention: Vec::new(), only: Some(newly_mentioned) },
            webhooks: None,
        }
    }

    /// Runs the job after the response when its site is a request's; otherwise (an alarm,
    /// which answers no client) now.
    pub async fn start(self) {
        match self.site.after_response() {
            Some(worker) => worker.wait_until(self.run()),
            None => self.run().await,
        }
    }

    async fn run(self) {
        let Site { env, database, realm_host, realm_url, settings, .. } = &self.site;
        let push_relay = &settings.push_relay;
        let db = match self.site.db() {
            Ok(db) => db,
            Err(err) => return worker::console_error!("follow-up of message {} not run: {}", self.mailed.id, err.msg),
        };
        // Side by side: a slow push relay delays neither the emails nor the webhooks.
        let push = async {
            if let (Some(relay), true) = (push_relay, self.may_notify_push) {
                let Ok(push_db) = self.site.db() else { return };
                let job = MessageNoticeJob {
                    env: env.clone(),
                    db: push_db,
                    relay: relay.clone(),
                    realm_url: realm_url.clone(),
                    sender: self.sender.clone(),
                    message_id: self.mailed.id,
                    followed_by_send: self.mailed.followed_by_mention.clone(),
                    only_users: self.mailed.only.clone(),
                };
                push::notify_new_message(job).await;
            }
        };
        let emails = missed_message_emails::queue(&db, env, database, realm_host, &self.sender, &self.mailed);
        let webhooks = async {
            if let Some((triggers, message)) = &self.webhooks {
                let message = message.to_string();
                crate::actions::outgoing_webhooks::queue(&db, env, database, realm_host, self.sender.realm_id, triggers, &message).await;
            }
        };
        futures_util::future::join3(push, emails, webhooks).await;
    }
}
