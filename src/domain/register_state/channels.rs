//! Channels and user groups in the register state.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use super::{settings::user_settings, StateData, StateRequest};
use crate::db::users::UserRow;
use crate::domain::channels::{can_see_channel, stream_dict, subscription_dict, GlobalNotifications, SystemGroups};
use crate::domain::user_groups::member_by_role;

/// Every group (deactivated ones only for clients with `include_deactivated_groups`), its
/// members: system groups by role, others by their member rows.
pub(super) fn user_groups(data: &StateData, include_deactivated: bool) -> Vec<Value> {
    let mut members: HashMap<i64, Vec<i64>> = HashMap::new();
    for m in &data.group_members {
        members.entry(m.group_id).or_default().push(m.user_id);
    }
    let mut subgroups: HashMap<i64, Vec<i64>> = HashMap::new();
    for s in &data.subgroups {
        subgroups.entry(s.supergroup_id).or_default().push(s.subgroup_id);
    }
    let (waiting_period, now) = (data.settings.waiting_period_threshold, crate::db::now());
    data.groups
        .iter()
        .filter(|g| g.is_anonymous == 0 && (include_deactivated || g.deactivated == 0))
        .map(|g| {
            let direct: Vec<i64> = match g.system_role {
                Some(_) => data.users.iter().filter(|u| member_by_role(g, u, waiting_period, now)).map(|u| u.id).collect(),
                None => members.get(&g.id).cloned().unwrap_or_default(),
            };
            crate::domain::user_groups::group_dict(g, &direct, subgroups.get(&g.id).map(Vec::as_slice).unwrap_or(&[]))
        })
        .collect()
}

/// `subscriptions`, `unsubscribed`, `never_subscribed` and `streams`.
pub(super) fn channel_state(user: &UserRow, data: &StateData, system: &SystemGroups, req: &StateRequest<'_>) -> Map<String, Value> {
    let mut subscribers: HashMap<i64, Vec<i64>> = HashMap::new();
    let active_users: std::collections::HashSet<i64> = data.users.iter().filter(|u| u.is_active()).map(|u| u.id).collect();
    for s in &data.subscriptions {
        if s.active != 0 && active_users.contains(&s.user_id) {
            subscribers.entry(s.channel_id).or_default().push(s.user_id);
        }
    }
    let us = user_settings(user);
    let global = GlobalNotifications {
        desktop: us["enable_stream_desktop_notifications"].as_bool().unwrap_or(false),
        audible: us["enable_stream_audible_notifications"].as_bool().unwrap_or(false),
        push: us["enable_stream_push_notifications"].as_bool().unwrap_or(false),
        email: us["enable_stream_email_notifications"].as_bool().unwrap_or(false),
        wildcard_mentions_notify: us["wildcard_mentions_notify"].as_bool().unwrap_or(true),
    };
    let global = (!req.capabilities.notification_settings_null).then_some(&global);
    let empty: Vec<i64> = Vec::new();
    let (mut subscribed, mut unsubscribed, mut never, mut streams) = (vec![], vec![], vec![], vec![]);
    // Archived channels only for clients that know them (`archived_channels`), like Zulip.
    let channels = data.channels.iter().filter(|c| c.is_archived == 0 || req.capabilities.archived_channels);
    for c in channels {
        let subs = subscribers.get(&c.id).unwrap_or(&empty);
        let public = !c.is_private();
        let with_list = |list: Option<&[i64]>| {
            let mut d = stream_dict(c, system);
            if let Some(list) = list {
                d["subscribers"] = json!(list);
            }
            d
        };
        match c.sub_active {
            Some(active) if active != 0 => {
                let list = req.include_subscribers.then_some(subs.as_slice());
                subscribed.push(subscription_dict(c, system, list, global));
            }
            Some(_) => {
                // Former subscribers see subscribers of public channels only.
                let list = (req.include_subscribers && (public || user.is_realm_admin())).then_some(subs.as_slice());
                unsubscribed.push(subscription_dict(c, system, list, global));
            }
            None if can_see_channel(user, c) => {
                let list = (req.include_subscribers && public).then_some(subs.as_slice());
                never.push(with_list(list));
            }
            None => {}
        }
        let visible = c.subscribed() || (public && !user.is_guest()) || c.is_web_public != 0;
        if visible {
            streams.push(with_list(None));
        }
    }
    let mut state = Map::new();
    if req.want("subscription") {
        state.insert("subscriptions".into(), json!(subscribed));
        state.insert("unsubscribed".into(), json!(unsubscribed));
        state.insert("never_subscribed".into(), json!(never));
    }
    if req.want("stream") {
        state.insert("streams".into(), json!(streams));
    }
    state
}
