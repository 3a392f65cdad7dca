//! Reporting a message to the organization's moderators (`POST /messages/{id}/report`):
//! the notification bot posts the report in the moderation request channel.

use serde_json::Value;

use crate::actions::message_notifications::send_notice;
use crate::actions::message_send::PlannedChannel;
use crate::context::RequestContext;
use crate::db::batch::Batch;
use crate::db::messages::{people_of_message_stmt, PersonRow};
use crate::db::subscriptions::{self, ChannelViewRow};
use crate::db::users::UserRow;
use crate::domain::message_reports::{check_report, report_content, report_topic, Reported};
use crate::domain::messages::accessed_from;
use crate::error::{ApiError, ApiResult};
use crate::model::ids::{MessageId, RealmId, UserId};

fn reporting_off() -> ApiError {
    ApiError::bad_request("Moderation request channel must be specified to enable message reporting.")
}

/// Reports message `message_id`, one `me` may read: one read (access, the conversation, the
/// moderation request channel), then the notification bot's message.
pub async fn report_message(ctx: &RequestContext, me: &UserRow, message_id: i64, report_type: &str, description: &str) -> ApiResult<()> {
    check_report(report_type, description)?;
    let realm = ctx.realm_state(me.realm_id).await?;
    let Some(channel_id) = realm.settings.moderation_request_channel_id else { return Err(reporting_off()) };
    let (realm_id, message) = (RealmId(me.realm_id), MessageId(message_id));
    let mut batch = Batch::new();
    let access = batch.add::<Value>(crate::db::messages::access_stmt(message, realm_id, UserId(me.id))?);
    let people = batch.add::<PersonRow>(people_of_message_stmt(realm_id, message)?);
    let channel = batch.add::<ChannelViewRow>(subscriptions::by_ids_for_user_stmt(realm_id, UserId(me.id), &format!("[{channel_id}]"))?);
    let results = batch.run(&ctx.db).await?;
    let accessed = accessed_from(me, results.first(access)?)?;
    let channel = results.first(channel)?.filter(|c| c.is_archived == 0).ok_or_else(reporting_off)?;
    let mut people = results.rows(people)?;
    let sender = people.first().map(|p| (p.id, p.full_name.clone())).ok_or_else(crate::domain::messages::invalid_message)?;
    let m = &accessed.message;
    let reported = match &accessed.channel {
        Some(c) => Reported::Channel { name: &c.name, topic: &m.topic },
        None => {
            people.remove(0);
            people.sort_by_key(|p| p.id);
            Reported::Direct(people.iter().map(|p| (p.id, p.full_name.as_str())).collect())
        }
    };
    let content = report_content((me.id, &me.full_name), (sender.0, &sender.1), m.id, &reported, &m.content, report_type, description);
    let notice_channel = PlannedChannel { id: channel.id, name: channel.name.clone(), recipient_id: channel.recipient_id };
    send_notice(ctx, me, &realm.settings, notice_channel, &report_topic(&sender.1), content).await?;
    Ok(())
}
