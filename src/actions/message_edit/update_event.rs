//! The `update_message` event of an edit, to each user who sees it.

use super::*;

pub(super) struct EventRecipients<'a> {
    pub(super) rows_before: &'a [RecipientRow],
    pub(super) shared_history_subscribers: &'a [i64],
    /// Content edits of channel messages: the channel's name (`stream_name`).
    pub(super) channel_name: Option<&'a str>,
}

/// `update_message` (Zulip's shape) to everyone who had the message (their flags), and for
/// channels with shared history to the subscribers of the channels involved (`read`).
#[allow(clippy::too_many_arguments)]
pub(super) async fn send_update_event(
    ctx: &RequestContext,
    user: &UserRow,
    message: &MessageRow,
    plan: &EditPlan,
    rendered: Option<&Rendered>,
    scope: Option<&MoveScope>,
    access: Option<&ChannelMoveAccess>,
    recipients: &EventRecipients<'_>,
    changed_ids: &[i64],
    topic_participants: &[i64],
    now: i64,
) {
    let channel = match scope {
        Some(s) => Some((s.orig_channel.id, s.orig_channel.name.as_str())),
        None => message.channel_id.map(|id| (id, recipients.channel_name.unwrap_or_default())),
    };
    let event = update_message_event(
        UserId(user.id),
        now,
        message,
        plan,
        rendered.map(|r| (r.html.as_str(), r.is_me_message)),
        changed_ids,
        channel,
    );
    let mut users: BTreeMap<i64, Option<Vec<String>>> = BTreeMap::new();
    let losing: BTreeSet<i64> = access.map(|a| a.losing_rows.iter().copied().collect()).unwrap_or_default();
    for row in recipients.rows_before {
        if losing.contains(&row.user_id) {
            continue;
        }
        let mut flags = row.flags;
        if let Some(r) = rendered {
            use crate::model::message_flags::{MENTIONED, STREAM_WILDCARD_MENTIONED, TOPIC_WILDCARD_MENTIONED};
            flags &= !(MENTIONED | STREAM_WILDCARD_MENTIONED | TOPIC_WILDCARD_MENTIONED);
            if r.mentioned_user_ids.contains(&row.user_id) {
                flags |= MENTIONED;
            }
            if r.stream_wildcard {
                flags |= STREAM_WILDCARD_MENTIONED;
            }
            if topic_participants.contains(&row.user_id) {
                flags |= TOPIC_WILDCARD_MENTIONED;
            }
        }
        users.insert(row.user_id, Some(flag_names(Some(flags))));
    }
    if let Some(scope) = scope {
        if scope.orig_channel.history_public_to_subscribers != 0 {
            let mut subscribers: BTreeSet<i64> = match access {
                Some(a) => a.new_subscribers.union(&a.old_subscribers).copied().collect(),
                None => scope.subscribers.iter().filter(|s| s.active != 0).map(|s| s.user_id).collect(),
            };
            if let Some(a) = access {
                for id in &a.losing_access {
                    subscribers.remove(id);
                }
            }
            for id in subscribers {
                users.entry(id).or_insert_with(|| Some(flag_names(Some(READ))));
            }
        }
    } else if message.channel_id.is_some() {
        for id in recipients.shared_history_subscribers {
            users.entry(*id).or_insert_with(|| Some(flag_names(Some(READ))));
        }
    }
    let users: Vec<EventUser> = users.into_iter().map(|(id, flags)| EventUser { id, flags }).collect();
    events::send_event(&ctx.env, user.realm_id, &event, &users).await;
}

/// Zulip's `update_message` event of an edit (without `id`; flags travel per user).
/// `rendered`: the new HTML and `/me` status of a content edit; `channel`: the channel the
/// message was in (channel messages).
pub(super) fn update_message_event(
    editor_id: UserId,
    now: i64,
    message: &MessageRow,
    plan: &EditPlan,
    rendered: Option<(&str, bool)>,
    changed_ids: &[i64],
    channel: Option<(i64, &str)>,
) -> Event {
    let mut event = UpdateMessageEvent {
        user_id: editor_id,
        edit_timestamp: now,
        message_id: message.id,
        message_ids: changed_ids.to_vec(),
        rendering_only: false,
        ..Default::default()
    };
    if let (Some(content), Some((html, is_me))) = (&plan.content, rendered) {
        event.orig_content = Some(message.content.clone());
        event.orig_rendered_content = Some(message.rendered_content.clone());
        event.content = Some(content.clone());
        event.rendered_content = Some(html.to_string());
        event.is_me_message = Some(is_me);
    }
    if let Some((id, name)) = channel {
        event.stream_id = Some(id);
        event.stream_name = Some(name.to_string());
    }
    if plan.is_moved() {
        event.propagate_mode = Some(plan.propagate_mode.as_str());
    }
    if plan.stream_id.is_some() || plan.topic.is_some() {
        event.orig_subject = Some(message.topic.clone());
    }
    event.new_stream_id = plan.stream_id;
    if let Some(topic) = &plan.topic {
        event.subject = Some(topic.clone());
        event.topic_links = Some(Vec::new());
    }
    Event::UpdateMessage(Box::new(event))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn message() -> MessageRow {
        MessageRow::for_tests()
    }

    fn plan() -> EditPlan {
        EditPlan {
            content: None,
            topic: None,
            stream_id: None,
            propagate_mode: PropagateMode::ChangeOne,
            topic_resolved: false,
            topic_unresolved: false,
        }
    }

    #[test]
    fn content_edit_event_carries_old_and_new_content() {
        let plan = EditPlan { content: Some("new".into()), ..plan() };
        let event = serde_json::to_value(update_message_event(
            UserId(1),
            50,
            &message(),
            &plan,
            Some(("<p>new</p>", false)),
            &[10],
            Some((7, "Verona")),
        ))
        .unwrap();
        assert_eq!(
            event,
            json!({
                "type": "update_message", "user_id": 1, "edit_timestamp": 50, "message_id": 10, "message_ids": [10],
                "rendering_only": false, "orig_content": "hi", "orig_rendered_content": "<p>hi</p>", "content": "new",
                "rendered_content": "<p>new</p>", "is_me_message": false, "stream_id": 7, "stream_name": "Verona",
            })
        );
    }

    #[test]
    fn move_event_names_both_channels_topics_and_mode() {
        let plan = EditPlan { topic: Some("new".into()), stream_id: Some(9), propagate_mode: PropagateMode::ChangeAll, ..plan() };
        let event =
            serde_json::to_value(update_message_event(UserId(2), 50, &message(), &plan, None, &[10, 11], Some((7, "Verona")))).unwrap();
        assert_eq!(event["propagate_mode"], "change_all");
        assert_eq!(event["new_stream_id"], 9);
        assert_eq!(event["orig_subject"], "old");
        assert_eq!(event["subject"], "new");
        assert_eq!(event["message_ids"], json!([10, 11]));
        assert!(event.get("content").is_none());
    }
}
