//! Adding and removing emoji reactions, with their events.

use serde::Deserialize;
use serde_json::{json, Value};
use worker::D1Database;

use crate::actions::site::Site;

use crate::db::batch::Batch;
use crate::db::reactions::{self, ReactionEmojiRow};
use crate::db::realm_emoji::{self, RealmEmojiRow};
use crate::db::user_messages::HolderRow;
use crate::db::users::UserRow;
use crate::domain::messages::{accessed_from, AccessedMessage};
use crate::domain::reactions::{check_emoji_request, emoji_from_request};
use crate::domain::users::public_email;
use crate::error::{ApiError, ApiResult};
use crate::event_types::ReactionEvent;
use crate::events::{send_event, Event, EventUser};
use crate::model::ids::{MessageId, RealmId, UserId};
use crate::model::message_flags::NO_ROW;

pub use crate::domain::reactions::Emoji;

/// The users who see the message's reactions change: those with a row for it (read in the
/// batch that changes the reaction), and the actor.
fn audience(rows: Vec<HolderRow>, actor: i64) -> Vec<EventUser> {
    let mut ids: Vec<i64> = rows.into_iter().map(|r| r.user_id).collect();
    if !ids.contains(&actor) {
        ids.push(actor);
    }
    ids.into_iter().map(EventUser::plain).collect()
}

fn reaction_event(op: &'static str, me: &UserRow, realm_host: &str, message_id: i64, emoji: &Emoji) -> Event {
    Event::Reaction(ReactionEvent {
        op,
        message_id,
        emoji_name: emoji.name.clone(),
        emoji_code: emoji.code.clone(),
        reaction_type: emoji.reaction_type.clone(),
        user_id: me.id,
        user: json!({ "user_id": me.id, "email": public_email(me, realm_host), "full_name": me.full_name, "is_mirror_dummy": false }),
    })
}

/// Zulip's `check_add_reaction`: a missing code or type comes from the name. Reacting with
/// an emoji someone already reacted with joins that reaction (its name wins, and it may be
/// a since deactivated custom emoji); any other emoji must pass `check_emoji_request`.
/// One read batch (the message's access, the named custom emoji, the message's reactions)
/// and one write batch.
pub async fn check_add_reaction(
    site: &Site,
    me: &UserRow,
    message_id: MessageId,
    name: String,
    code: Option<String>,
    reaction_type: Option<String>,
) -> ApiResult<()> {
    let db = &site.db()?;
    let mut batch = Batch::new();
    let access = batch.add::<Value>(crate::db::messages::access_stmt(message_id, RealmId(me.realm_id), UserId(me.id))?);
    let custom_id = code.as_deref().and_then(crate::params::parse_int);
    let custom = batch.add::<RealmEmojiRow>(realm_emoji::for_reaction_stmt(RealmId(me.realm_id), &name, custom_id)?);
    let existing = batch.add::<ReactionEmojiRow>(reactions::emoji_on_message_stmt(message_id.0)?);
    let results = batch.run(db).await?;
    let accessed = accessed_from(me, results.first(access)?)?;
    let custom = results.rows(custom)?;
    let mut emoji = emoji_from_request(name, code, reaction_type, &custom)?;
    match results.rows(existing)?.into_iter().find(|r| r.emoji_code == emoji.code && r.reaction_type == emoji.reaction_type) {
        Some(joined) => emoji.name = joined.emoji_name,
        None => check_emoji_request(&emoji, &custom)?,
    }
    do_add_reaction(db, site, me, &accessed, &emoji).await
}

/// Adds the reaction ("Reaction already exists." if the user has it). A user reacting to a
/// channel message it did not receive gets a historical row, as in Zulip.
pub async fn do_add_reaction(db: &D1Database, site: &Site, me: &UserRow, accessed: &AccessedMessage, emoji: &Emoji) -> ApiResult<()> {
    let message_id = accessed.message.id;
    let mut batch = Batch::new();
    if accessed.user_flags.is_none() {
        batch.add::<Value>(crate::db::user_messages::insert_historical_stmt(UserId(me.id), MessageId(message_id), NO_ROW)?);
    }
    batch.add::<Value>(reactions::insert_stmt(MessageId(message_id), UserId(me.id), &emoji.name, &emoji.code, &emoji.reaction_type)?);
    let holders = batch.add::<HolderRow>(crate::db::user_messages::holder_ids_stmt(message_id)?);
    let results = match batch.run(db).await {
        Ok(results) => results,
        Err(err) if err.to_string().contains("UNIQUE") => return Err(ApiError::bad_request("Reaction already exists.")),
        Err(err) => return Err(err.into()),
    };
    let event = reaction_event("add", me, &site.realm_host, message_id, emoji);
    send_event(&site.env, me.realm_id, &event, &audience(results.rows(holders)?, me.id)).await;
    Ok(())
}

/// Without a code, the name decides the emoji and its type, as when adding: an active custom
/// emoji, `zulip`, a unicode emoji; any other name matches the user's reaction by name.
/// One read batch (the message's access, the named custom emoji) and one write batch.
pub async fn check_remove_reaction(
    site: &Site,
    me: &UserRow,
    message_id: MessageId,
    name: Option<String>,
    code: Option<String>,
    reaction_type: Option<String>,
) -> ApiResult<()> {
    let db = &site.db()?;
    let mut batch = Batch::new();
    let access = batch.add::<Value>(crate::db::messages::access_stmt(message_id, RealmId(me.realm_id), UserId(me.id))?);
    let named = name.clone().unwrap_or_default();
    let custom = match code {
        Some(_) => None,
        None => Some(batch.add::<RealmEmojiRow>(realm_emoji::active_by_name_stmt(me.realm_id, &named)?)),
    };
    let results = batch.run(db).await?;
    accessed_from(me, results.first(access)?)?;
    let custom = custom.map(|slot| results.first(slot)).transpose()?.flatten();
    let unicode = || "unicode_emoji".to_string();
    let (code, reaction_type) = match code {
        Some(code) => (Some(code), reaction_type.unwrap_or_else(unicode)),
        None => match (custom, crate::emoji::code_for_name(&named)) {
            (Some(custom), _) => (Some(custom.id.to_string()), reaction_type.unwrap_or_else(|| "realm_emoji".into())),
            (None, Some(code)) => (Some(code.to_string()), reaction_type.unwrap_or_else(unicode)),
            (None, None) if named == "zulip" => (Some("zulip".into()), "zulip_extra_emoji".into()),
            (None, None) => (None, reaction_type.unwrap_or_else(unicode)),
        },
    };
    do_remove_reaction(db, site, me, message_id, name.as_deref(), code.as_deref(), &reaction_type).await
}

#[derive(Deserialize)]
struct ReactionKey {
    emoji_name: String,
    emoji_code: String,
    reaction_type: String,
}

/// Removes the user's reaction matching the code (or, without code, the name);
/// "Reaction doesn't exist." when there is none.
pub async fn do_remove_reaction(
    db: &D1Database,
    site: &Site,
    me: &UserRow,
    message_id: MessageId,
    name: Option<&str>,
    code: Option<&str>,
    reaction_type: &str,
) -> ApiResult<()> {
    let mut batch = Batch::new();
    let deleted = batch.add::<ReactionKey>(reactions::delete_stmt(message_id, UserId(me.id), reaction_type, code, name)?);
    let holders = batch.add::<HolderRow>(crate::db::user_messages::holder_ids_stmt(message_id.0)?);
    let results = batch.run(db).await?;
    let Some(key) = results.first(deleted)? else { return Err(ApiError::bad_request("Reaction doesn't exist.")) };
    let emoji = Emoji { name: key.emoji_name, code: key.emoji_code, reaction_type: key.reaction_type };
    let event = reaction_event("remove", me, &site.realm_host, message_id.0, &emoji);
    send_event(&site.env, me.realm_id, &event, &audience(results.rows(holders)?, me.id)).await;
    Ok(())
}
