//! `user_topics`: each user's visibility policy per channel topic.

use serde::Deserialize;
use worker::Result;

use crate::db::statement::{statement, Statement};
use crate::model::ids::{ChannelId, RealmId, UserId};
use crate::model::VisibilityPolicy;

#[derive(Debug, Clone, Deserialize)]
pub struct UserTopicRow {
    pub user_id: i64,
    pub channel_id: i64,
    pub topic: String,
    pub visibility_policy: VisibilityPolicy,
    pub last_updated: i64,
}

/// Sets a policy (`Inherit` removes the row).
pub fn upsert_stmt(
    realm_id: RealmId,
    user_id: UserId,
    channel_id: ChannelId,
    topic: &str,
    policy: VisibilityPolicy,
    now: i64,
) -> Result<Statement> {
    if policy == VisibilityPolicy::Inherit {
        return statement!(
            "DELETE FROM user_topics WHERE user_id = ?1 AND channel_id = ?2 AND topic = ?3 COLLATE NOCASE",
            user_id,
            channel_id,
            topic
        );
    }
    statement!(
        "INSERT INTO user_topics (realm_id, user_id, channel_id, topic, visibility_policy, last_updated) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6) \
         ON CONFLICT (user_id, channel_id, topic COLLATE NOCASE) DO UPDATE SET visibility_policy = ?5, last_updated = ?6",
        realm_id,
        user_id,
        channel_id,
        topic,
        policy,
        now
    )
}

/// All of a user's topic policies (for `POST /register`'s `user_topics`).
pub fn for_user_stmt(user_id: i64) -> Result<Statement> {
    statement!(
        "SELECT user_id, channel_id, topic, visibility_policy, last_updated FROM user_topics WHERE user_id = ?1 ORDER BY id",
        user_id
    )
}
