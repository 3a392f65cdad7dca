//! Changing one's status, with the `user_status` event to the organization.

use worker::{D1Database, Env};

use crate::actions::notify_realm;
use crate::db::user_status::{self, StatusChange};
use crate::db::users::UserRow;
use crate::error::ApiResult;
use crate::event_types::{Event, UserStatusEvent};
use crate::model::ids::{RealmId, UserId};

/// Writes the given parts; the event carries exactly those parts, as Zulip's.
pub async fn do_update_user_status(db: &D1Database, env: &Env, me: &UserRow, change: &StatusChange<'_>) -> ApiResult<()> {
    crate::db::run(db, user_status::upsert_stmt(RealmId(me.realm_id), UserId(me.id), change, crate::db::now())?).await?;
    let mut status =
        UserStatusEvent { user_id: me.id, away: change.away, status_text: change.status_text.map(str::to_string), ..Default::default() };
    if let Some((name, code, kind)) = change.emoji {
        status.emoji_name = Some(name.to_string());
        status.emoji_code = Some(code.to_string());
        status.reaction_type = Some(kind.to_string());
    }
    let event = Event::UserStatus(status);
    notify_realm(env, me.realm_id, &event).await;
    Ok(())
}

/// The emoji of a status, checked as a new reaction's (custom emoji included).
pub async fn check_status_emoji(
    db: &D1Database,
    realm_id: i64,
    name: String,
    code: Option<String>,
    reaction_type: Option<String>,
) -> ApiResult<crate::domain::reactions::Emoji> {
    let custom_id = code.as_deref().and_then(crate::params::parse_int);
    let custom: Vec<crate::db::realm_emoji::RealmEmojiRow> =
        crate::db::all(db, crate::db::realm_emoji::for_reaction_stmt(RealmId(realm_id), &name, custom_id)?).await?;
    crate::domain::reactions::resolve_emoji(name, code, reaction_type, &custom)
}
