//! Starting and ending the web client's browser sessions (`crate::domain::sessions`).

use worker::{D1Database, Env};

use crate::db::users::UserRow;
use crate::db::{self, sessions};
use crate::domain::sessions::{csrf_token, session_hash, SESSION_ID_LENGTH, SESSION_LIFETIME_SECS};
use crate::error::ApiResult;
use crate::model::ids::{RealmId, UserId};
use crate::secrets;

/// A session just started: what its two cookies carry.
pub struct StartedSession {
    pub id: String,
    pub csrf_token: String,
}

/// Starts a session for `user`, who has just proved who they are.
pub async fn do_start_session(db: &D1Database, env: &Env, user: &UserRow) -> ApiResult<StartedSession> {
    let secret = secrets::api_key_secret(env)?;
    let id = secrets::random_alphanumeric(SESSION_ID_LENGTH);
    let now = db::now();
    sessions::start(db, RealmId(user.realm_id), UserId(user.id), &session_hash(&id), now, now + SESSION_LIFETIME_SECS).await?;
    Ok(StartedSession { csrf_token: csrf_token(secret.as_bytes(), &id), id })
}

/// Ends the session `session_id` of the organization: its cookie authenticates no more.
pub async fn do_end_session(db: &D1Database, realm_id: i64, session_id: &str) -> ApiResult<()> {
    sessions::end(db, realm_id, &session_hash(session_id)).await?;
    Ok(())
}
