//! Creating, updating and reordering channel folders, with their `channel_folder` events
//! (to every active user of the organization).

use serde_json::{json, Value};
use worker::{D1Database, Env};

use crate::actions::notify_realm;
use crate::db::batch::Batch;
use crate::db::channel_folders::{self, ChannelFolderRow, InUse, NewChannelFolder, Taken};
use crate::db::{self, users::UserRow};
use crate::domain::channel_folders::{
    check_folder_description, check_folder_name, check_order, folder_dict, folder_in_use, folder_name_taken, invalid_folder_id,
};
use crate::domain::rendering::render_content;
use crate::error::{ApiError, ApiResult};
use crate::event_types::{ChannelFolderEvent, Event};
use crate::model::ids::RealmId;

/// The description as HTML (Zulip renders it as Markdown).
async fn render_description(db: &D1Database, realm_id: i64, description: &str) -> ApiResult<String> {
    if description.trim().is_empty() {
        return Ok(String::new());
    }
    // Folder actions do not know the request's URL; links in descriptions stay absolute.
    Ok(render_content(db, realm_id, "", description, false).await?.0.html)
}

/// Validates and creates a folder (last in the order); answers its id.
pub async fn do_create_channel_folder(db: &D1Database, env: &Env, admin: &UserRow, name: &str, description: &str) -> ApiResult<i64> {
    check_folder_name(name)?;
    check_folder_description(description)?;
    let rendered_description = render_description(db, admin.realm_id, description).await?;
    let folder = NewChannelFolder {
        realm_id: admin.realm_id,
        name,
        description,
        rendered_description: &rendered_description,
        creator_id: admin.id,
        now: db::now(),
    };
    let row = channel_folders::insert(db, &folder).await?.ok_or_else(|| folder_name_taken(name))?;
    notify_realm(env, admin.realm_id, &Event::ChannelFolder(ChannelFolderEvent::Add { channel_folder: folder_dict(&row) })).await;
    Ok(row.id)
}

/// What `PATCH /channel_folders/{id}` asks to change.
pub struct FolderChanges {
    pub name: Option<String>,
    pub description: Option<String>,
    pub is_archived: Option<bool>,
}

/// Applies the changes that differ from the folder's state, in one write, then sends one
/// `update` event per changed property as Zulip does. Archiving needs the folder empty.
pub async fn do_update_channel_folder(db: &D1Database, env: &Env, admin: &UserRow, id: i64, changes: &FolderChanges) -> ApiResult<()> {
    if let Some(name) = &changes.name {
        check_folder_name(name)?;
    }
    if let Some(description) = &changes.description {
        check_folder_description(description)?;
    }
    let mut batch = Batch::new();
    let folder = batch.add::<ChannelFolderRow>(channel_folders::by_id_stmt(RealmId(admin.realm_id), id)?);
    let taken = batch.add::<Taken>(channel_folders::name_taken_stmt(RealmId(admin.realm_id), changes.name.as_deref().unwrap_or(""), id)?);
    let in_use = batch.add::<InUse>(channel_folders::channels_in_folder_stmt(RealmId(admin.realm_id), id)?);
    let results = batch.run(db).await?;
    let old = results.first(folder)?.ok_or_else(invalid_folder_id)?;
    let mut new = old.clone();
    let mut events: Vec<Value> = Vec::new();
    if let Some(name) = changes.name.as_ref().filter(|n| **n != old.name) {
        if results.first(taken)?.is_some_and(|t| t.taken != 0) {
            return Err(folder_name_taken(name));
        }
        new.name = name.clone();
        events.push(json!({ "name": name }));
    }
    if let Some(archive) = changes.is_archived.filter(|a| *a != (old.is_archived != 0)) {
        if archive && results.first(in_use)?.is_some_and(|u| u.channels > 0) {
            return Err(folder_in_use());
        }
        new.is_archived = archive as i64;
    }
    if let Some(description) = changes.description.as_ref().filter(|d| **d != old.description) {
        new.rendered_description = render_description(db, admin.realm_id, description).await?;
        new.description = description.clone();
        events.push(json!({ "description": description, "rendered_description": new.rendered_description }));
    }
    if new.is_archived != old.is_archived {
        events.push(json!({ "is_archived": new.is_archived != 0 }));
    }
    if events.is_empty() {
        return Ok(());
    }
    crate::db::run(db, channel_folders::update_stmt(&new)?).await?;
    for data in events {
        notify_realm(env, admin.realm_id, &Event::ChannelFolder(ChannelFolderEvent::Update { channel_folder_id: id, data })).await;
    }
    Ok(())
}

/// Sets the display order: `order` lists every folder id of the organization once.
pub async fn do_reorder_channel_folders(db: &D1Database, env: &Env, admin: &UserRow, order: &[i64]) -> ApiResult<()> {
    let ids: Vec<i64> = channel_folders::in_realm(db, admin.realm_id).await?.iter().map(|f| f.id).collect();
    check_order(order, &ids)?;
    let order_json = serde_json::to_string(order).map_err(ApiError::from)?;
    crate::db::run(db, channel_folders::reorder_stmt(admin.realm_id, &order_json)?).await?;
    notify_realm(env, admin.realm_id, &Event::ChannelFolder(ChannelFolderEvent::Reorder { order: order.to_vec() })).await;
    Ok(())
}
