//! The user groups of an export's `realm.json` and the group-valued settings naming them,
//! as Zulip's export writes them: every group in `zerver_usergroup` (its id and
//! organization), the named ones' details and permission settings in
//! `zerver_namedusergroup`, members in `zerver_usergroupmembership` (the role groups' too,
//! by role, as Zulip keeps them) and subgroups in `zerver_groupgroupmembership`. Each
//! group-valued setting of the organization, its channels and its named groups is the id of
//! one of those groups: a named group, or an anonymous group (a set of users and groups
//! that only the setting names), which has no `zerver_namedusergroup` row.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{json, Value};

use crate::db::realm_export_data::Row;
use crate::db::realm_settings::group_setting_columns;
use crate::db::user_groups::PERMISSION_COLUMNS;
use crate::domain::channel_permissions::STORED as CHANNEL_SETTINGS;
use crate::domain::realm_export::zulip_row;
use crate::model::system_groups;

/// The group tables of `realm.json`.
pub struct GroupTables {
    /// `zerver_usergroup`: `{id, realm}` of every group the archive holds.
    pub user_groups: Vec<Value>,
    pub named_groups: Vec<Value>,
    /// `{user_group, user_profile}` and `{supergroup, subgroup}`, without ids of their own.
    pub memberships: Vec<Row>,
    pub subgroups: Vec<Row>,
}

fn id_of(row: &Row, field: &str) -> Option<i64> {
    row.get(field).and_then(Value::as_i64)
}

fn is_set(row: &Row, field: &str) -> bool {
    id_of(row, field).is_some_and(|v| v != 0)
}

/// The system groups' ids by name.
fn system_group_ids(groups: &[Row]) -> BTreeMap<String, i64> {
    groups
        .iter()
        .filter(|g| is_set(g, "is_system_group"))
        .filter_map(|g| Some((g.get("name")?.as_str()?.to_string(), id_of(g, "id")?)))
        .collect()
}

/// The organization's settings this server does not store name the system group whose
/// rule it follows.
fn complete_realm_settings(realm: &mut [Row], system: &BTreeMap<String, i64>) {
    for row in realm {
        for (setting, group) in system_groups::FIXED_REALM_SETTINGS {
            row.insert(setting.into(), json!(system.get(group)));
        }
    }
}

/// A channel's setting left at its default (null) names the default's system group.
fn complete_channel_settings(channels: &mut [Row], system: &BTreeMap<String, i64>) {
    for channel in channels {
        for setting in CHANNEL_SETTINGS {
            if id_of(channel, setting.name).is_none() {
                channel.insert(setting.name.into(), json!(system.get(setting.default_group)));
            }
        }
    }
}

/// Zulip keeps "the group's creator" (this server's null) as an anonymous group holding
/// the creator, one per setting; without a creator, the empty set: `role:nobody`. Answers
/// each new group's id and its member; ids follow `last_id`.
fn creator_groups(named: &mut [Row], nobody: Option<i64>, mut last_id: i64) -> Vec<(i64, i64)> {
    let mut made = Vec::new();
    for group in named {
        let creator = id_of(group, "creator");
        for setting in PERMISSION_COLUMNS {
            if id_of(group, setting).is_some() {
                continue;
            }
            let value = match creator {
                Some(creator) => {
                    last_id += 1;
                    made.push((last_id, creator));
                    Some(last_id)
                }
                None => nobody,
            };
            group.insert(setting.into(), json!(value));
        }
    }
    made
}

/// The groups the exported settings name: the organization's, the channels' and the named
/// groups'.
fn named_by_settings(realm: &[Row], channels: &[Row], named: &[Row]) -> BTreeSet<i64> {
    let realm_settings = group_setting_columns();
    let values = realm.iter().flat_map(|r| realm_settings.iter().map(move |s| id_of(r, s)));
    let channel_values = channels.iter().flat_map(|c| CHANNEL_SETTINGS.iter().map(move |s| id_of(c, s.name)));
    let group_values = named.iter().flat_map(|g| PERMISSION_COLUMNS.iter().map(move |s| id_of(g, s)));
    values.chain(channel_values).chain(group_values).flatten().collect()
}

/// A named group's `zerver_namedusergroup` row, keyed by `usergroup_ptr`.
fn named_group_row(mut group: Row) -> Value {
    let (id, realm) = (group.get("id").cloned(), group.remove("realm"));
    group.remove("is_anonymous");
    group.remove("system_role");
    group.insert("usergroup_ptr".into(), id.unwrap_or(Value::Null));
    group.insert("realm_for_sharding".into(), realm.unwrap_or(Value::Null));
    zulip_row(group)
}

/// The group tables from every group of the organization (`groups`: named groups' settings
/// as the API reads them, null for "the group's creator"), their members and subgroups,
/// the organization's row and the channels the export lists, whose settings this
/// completes. Anonymous groups no exported setting names stay out.
pub fn group_tables(groups: Vec<Row>, members: Vec<Row>, subgroups: Vec<Row>, realm: &mut [Row], channels: &mut [Row]) -> GroupTables {
    let system = system_group_ids(&groups);
    complete_realm_settings(realm, &system);
    complete_channel_settings(channels, &system);
    let realm_id = realm.first().and_then(|r| id_of(r, "id"));
    let last_id = groups.iter().filter_map(|g| id_of(g, "id")).max().unwrap_or(0);
    let (anonymous, mut named): (Vec<Row>, Vec<Row>) = groups.into_iter().partition(|g| is_set(g, "is_anonymous"));
    let made = creator_groups(&mut named, system.get(system_groups::NOBODY).copied(), last_id);
    let used = named_by_settings(realm, channels, &named);
    let mut kept: BTreeSet<i64> = named.iter().filter_map(|g| id_of(g, "id")).collect();
    kept.extend(anonymous.iter().filter_map(|g| id_of(g, "id")).filter(|id| used.contains(id)));
    let kept_row = |row: &Row, field: &str| id_of(row, field).is_some_and(|id| kept.contains(&id));
    let mut memberships: Vec<Row> = members.into_iter().filter(|m| kept_row(m, "user_group")).collect();
    let subgroups: Vec<Row> = subgroups.into_iter().filter(|s| kept_row(s, "supergroup")).collect();
    let mut user_groups: Vec<Value> = kept.iter().map(|id| json!({ "id": id, "realm": realm_id })).collect();
    for (id, creator) in made {
        user_groups.push(json!({ "id": id, "realm": realm_id }));
        let mut membership = Row::new();
        membership.insert("user_group".into(), json!(id));
        membership.insert("user_profile".into(), json!(creator));
        memberships.push(membership);
    }
    GroupTables { user_groups, named_groups: named.into_iter().map(named_group_row).collect(), memberships, subgroups }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(value: Value) -> Row {
        serde_json::from_value(value).unwrap()
    }

    fn group(id: i64, name: &str, extra: Value) -> Row {
        let mut g = row(json!({ "id": id, "realm": 2, "name": name, "is_system_group": 0, "is_anonymous": 0, "creator": null }));
        g.extend(row(extra));
        for setting in PERMISSION_COLUMNS {
            g.entry(setting).or_insert(json!(1));
        }
        g
    }

    #[test]
    fn a_setting_of_the_creator_becomes_an_anonymous_group_of_the_creator() {
        let groups = vec![
            group(1, system_groups::NOBODY, json!({ "is_system_group": 1 })),
            group(5, "builders", json!({ "creator": 40, "can_manage_group": null })),
        ];
        let tables = group_tables(groups, Vec::new(), Vec::new(), &mut [row(json!({ "id": 2 }))], &mut []);
        assert_eq!(tables.named_groups[1]["can_manage_group"], 6);
        assert!(tables.user_groups.contains(&json!({ "id": 6, "realm": 2 })));
        assert_eq!(Value::Object(tables.memberships[0].clone()), json!({ "user_group": 6, "user_profile": 40 }));
    }

    #[test]
    fn a_setting_this_server_does_not_store_names_the_system_group_it_follows() {
        let groups = vec![
            group(1, system_groups::EVERYONE, json!({ "is_system_group": 1 })),
            group(2, system_groups::OWNERS, json!({ "is_system_group": 1 })),
        ];
        let mut realm = [row(json!({ "id": 2 }))];
        group_tables(groups, Vec::new(), Vec::new(), &mut realm, &mut []);
        assert_eq!(realm[0]["direct_message_permission_group"], 1);
        assert_eq!(realm[0]["can_create_web_public_channel_group"], 2);
    }

    #[test]
    fn an_anonymous_group_no_setting_names_stays_out() {
        let groups = vec![
            group(1, system_groups::NOBODY, json!({ "is_system_group": 1 })),
            group(7, "@anonymous:a", json!({ "is_anonymous": 1 })),
            group(8, "@anonymous:b", json!({ "is_anonymous": 1 })),
        ];
        let realm = row(json!({ "id": 2, "can_invite_users_group": 8 }));
        let members = vec![row(json!({ "user_group": 7, "user_profile": 3 })), row(json!({ "user_group": 8, "user_profile": 4 }))];
        let tables = group_tables(groups, members, Vec::new(), &mut [realm], &mut []);
        let ids: Vec<&Value> = tables.user_groups.iter().map(|g| &g["id"]).collect();
        assert_eq!(ids, [&json!(1), &json!(8)]);
        assert_eq!(tables.named_groups.len(), 1);
        assert_eq!(tables.memberships.len(), 1);
    }
}
