//! `invitations`, `multiuse_invites`, `realm_domains` and the join-rule columns of
//! `realms` (migration 0024).

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};
use crate::model::system_groups;

/// The organization's join rules, group settings resolved to group ids.
#[derive(Debug, Clone, Deserialize)]
pub struct JoinRulesRow {
    pub invite_required: i64,
    pub emails_restricted_to_domains: i64,
    pub disallow_disposable_email_addresses: i64,
    pub can_invite_users_group: i64,
    pub create_multiuse_invite_group: i64,
}

pub fn join_rules_stmt(realm_id: i64) -> Result<Statement> {
    let group = |column: &str, default: &str| {
        format!(
            "COALESCE(r.{column}, (SELECT g.id FROM user_groups g WHERE g.realm_id = r.id AND g.name = '{default}' \
             AND g.is_system_group = 1), 0) AS {column}"
        )
    };
    statement!(
        &format!(
            "SELECT r.invite_required, r.emails_restricted_to_domains, r.disallow_disposable_email_addresses, {}, {} \
             FROM realms r WHERE r.id = ?1",
            group("can_invite_users_group", system_groups::MEMBERS),
            group("create_multiuse_invite_group", system_groups::ADMINISTRATORS)
        ),
        realm_id
    )
}

pub async fn join_rules(db: &D1Database, realm_id: i64) -> Result<Option<JoinRulesRow>> {
    super::first(db, join_rules_stmt(realm_id)?).await
}

#[derive(Debug, Clone, Deserialize)]
pub struct RealmDomainRow {
    pub domain: String,
    pub allow_subdomains: i64,
}

pub fn realm_domains_stmt(realm_id: i64) -> Result<Statement> {
    statement!("SELECT domain, allow_subdomains FROM realm_domains WHERE realm_id = ?1 ORDER BY domain", realm_id)
}

pub async fn realm_domains(db: &D1Database, realm_id: i64) -> Result<Vec<RealmDomainRow>> {
    super::all(db, realm_domains_stmt(realm_id)?).await
}

/// Adds a domain; false when the organization has it already.
pub async fn add_realm_domain(db: &D1Database, realm_id: i64, domain: &str, allow_subdomains: bool) -> Result<bool> {
    let result = super::run(
        db,
        statement!(
            "INSERT INTO realm_domains (realm_id, domain, allow_subdomains) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING",
            realm_id,
            domain,
            allow_subdomains as i64
        )?,
    )
    .await?;
    Ok(result.changes()? > 0)
}

/// Removes a domain; false when the organization did not have it.
pub async fn remove_realm_domain(db: &D1Database, realm_id: i64, domain: &str) -> Result<bool> {
    let result = super::run(db, statement!("DELETE FROM realm_domains WHERE realm_id = ?1 AND domain = ?2", realm_id, domain)?).await?;
    Ok(result.changes()? > 0)
}

/// Changes one join-rule column of the organization (names from the fixed list in
/// `api::invites`, never from the client).
pub fn set_rule_stmt(realm_id: i64, column: &'static str, value: Option<i64>) -> Result<Statement> {
    statement!(&format!("UPDATE realms SET {column} = ?2 WHERE id = ?1"), realm_id, value)
}

#[derive(Debug, Clone, Deserialize)]
pub struct InvitationRow {
    pub id: i64,
    pub kind: String,
    pub email: String,
    pub referred_by: Option<i64>,
    pub multiuse_invite_id: Option<i64>,
    pub invited_as: i64,
    pub stream_ids: String,
    pub group_ids: String,
    pub include_realm_default_subscriptions: i64,
    pub notify_referrer_on_join: i64,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub revoked_at: Option<i64>,
    pub used_at: Option<i64>,
}

const INVITATION_COLUMNS: &str = "id, kind, email, referred_by, multiuse_invite_id, invited_as, stream_ids, group_ids, \
     include_realm_default_subscriptions, notify_referrer_on_join, created_at, expires_at, revoked_at, used_at";

/// What a new invitation or sign-up confirmation holds.
pub struct NewInvitation<'a> {
    pub realm_id: i64,
    pub kind: &'a str,
    pub email: &'a str,
    pub referred_by: Option<i64>,
    pub multiuse_invite_id: Option<i64>,
    pub invited_as: i64,
    pub stream_ids: &'a str,
    pub group_ids: &'a str,
    pub include_realm_default_subscriptions: bool,
    pub notify_referrer_on_join: bool,
    pub key_hash: &'a str,
    pub created_at: i64,
    pub expires_at: Option<i64>,
}

pub fn insert_invitation_stmt(n: &NewInvitation<'_>) -> Result<Statement> {
    statement!(
        "INSERT INTO invitations (realm_id, kind, email, referred_by, multiuse_invite_id, invited_as, stream_ids, group_ids, \
         include_realm_default_subscriptions, notify_referrer_on_join, key_hash, created_at, expires_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        n.realm_id,
        n.kind,
        n.email,
        n.referred_by,
        n.multiuse_invite_id,
        n.invited_as,
        n.stream_ids,
        n.group_ids,
        n.include_realm_default_subscriptions as i64,
        n.notify_referrer_on_join as i64,
        n.key_hash,
        n.created_at,
        n.expires_at
    )
}

/// Email invitations sent by the organization since `since` (the daily limit).
pub async fn invitations_sent_since(db: &D1Database, realm_id: i64, since: i64) -> Result<i64> {
    #[derive(Deserialize)]
    struct Count {
        n: i64,
    }
    let row: Option<Count> = super::first(
        db,
        statement!("SELECT COUNT(*) AS n FROM invitations WHERE realm_id = ?1 AND kind = 'invite' AND created_at >= ?2", realm_id, since)?,
    )
    .await?;
    Ok(row.map_or(0, |r| r.n))
}

/// Pending (unused, unrevoked, unexpired) email invitations: all of the organization's, or
/// those `referred_by` made.
pub async fn pending_invitations(db: &D1Database, realm_id: RealmId, referred_by: Option<UserId>, now: i64) -> Result<Vec<InvitationRow>> {
    super::all(
        db,
        statement!(
            &format!(
                "SELECT {INVITATION_COLUMNS} FROM invitations WHERE realm_id = ?1 AND kind = 'invite' AND used_at IS NULL \
             AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?3) AND (?2 IS NULL OR referred_by = ?2) ORDER BY id"
            ),
            realm_id,
            referred_by,
            now
        )?,
    )
    .await
}

/// A pending email invitation of the organization by id.
pub async fn pending_invitation(db: &D1Database, realm_id: RealmId, id: i64) -> Result<Option<InvitationRow>> {
    super::first(
        db,
        statement!(
            &format!(
                "SELECT {INVITATION_COLUMNS} FROM invitations WHERE realm_id = ?1 AND id = ?2 AND kind = 'invite' \
             AND used_at IS NULL AND revoked_at IS NULL"
            ),
            realm_id,
            id
        )?,
    )
    .await
}

/// The invitation or confirmation a link's key opens, whatever its state.
pub async fn invitation_by_key_hash(db: &D1Database, realm_id: i64, key_hash: &str) -> Result<Option<InvitationRow>> {
    super::first(
        db,
        statement!(&format!("SELECT {INVITATION_COLUMNS} FROM invitations WHERE realm_id = ?1 AND key_hash = ?2"), realm_id, key_hash)?,
    )
    .await
}

pub fn revoke_invitation_stmt(id: i64, now: i64) -> Result<Statement> {
    statement!("UPDATE invitations SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL", id, now)
}

/// A resent invitation gets a new key (the old link stops working) and a new date.
pub fn rekey_invitation_stmt(id: i64, key_hash: &str, now: i64) -> Result<Statement> {
    statement!("UPDATE invitations SET key_hash = ?2, created_at = ?3 WHERE id = ?1", id, key_hash, now)
}

/// Fails its batch (the `read_guards` CHECK, migration 0019) unless the invitation is still
/// usable at `now`: what makes a link work once even when two sign-ups race.
pub fn still_usable_guard_stmt(id: i64, now: i64) -> Result<Statement> {
    statement!(
        "UPDATE read_guards SET current = (SELECT COUNT(*) FROM invitations WHERE id = ?1 AND used_at IS NULL \
         AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?2)) WHERE id = 1",
        id,
        now
    )
}

/// Marks the invitation used by the account just inserted with `email`.
pub fn mark_used_stmt(id: i64, realm_id: RealmId, email: &str, now: i64) -> Result<Statement> {
    statement!(
        "UPDATE invitations SET used_at = ?2, user_id = (SELECT id FROM users WHERE realm_id = ?3 AND email = ?4) WHERE id = ?1",
        id,
        now,
        realm_id,
        email
    )
}

#[derive(Debug, Clone, Deserialize)]
pub struct MultiuseRow {
    pub id: i64,
    pub referred_by: i64,
    pub invited_as: i64,
    pub stream_ids: String,
    pub group_ids: String,
    pub include_realm_default_subscriptions: i64,
    pub link_key: String,
    pub created_at: i64,
    pub expires_at: Option<i64>,
    pub revoked_at: Option<i64>,
}

const MULTIUSE_COLUMNS: &str =
    "id, referred_by, invited_as, stream_ids, group_ids, include_realm_default_subscriptions, link_key, created_at, expires_at, revoked_at";

pub struct NewMultiuse<'a> {
    pub realm_id: i64,
    pub referred_by: i64,
    pub invited_as: i64,
    pub stream_ids: &'a str,
    pub group_ids: &'a str,
    pub include_realm_default_subscriptions: bool,
    pub link_key: &'a str,
    pub created_at: i64,
    pub expires_at: Option<i64>,
}

pub async fn insert_multiuse(db: &D1Database, n: &NewMultiuse<'_>) -> Result<()> {
    super::run(
        db,
        statement!(
            "INSERT INTO multiuse_invites (realm_id, referred_by, invited_as, stream_ids, group_ids, include_realm_default_subscriptions, \
         link_key, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            n.realm_id,
            n.referred_by,
            n.invited_as,
            n.stream_ids,
            n.group_ids,
            n.include_realm_default_subscriptions as i64,
            n.link_key,
            n.created_at,
            n.expires_at
        )?,
    )
    .await?;
    Ok(())
}

/// Unrevoked, unexpired links: all of the organization's, or those `referred_by` made.
pub async fn pending_multiuse(db: &D1Database, realm_id: RealmId, referred_by: Option<UserId>, now: i64) -> Result<Vec<MultiuseRow>> {
    super::all(
        db,
        statement!(
            &format!(
                "SELECT {MULTIUSE_COLUMNS} FROM multiuse_invites WHERE realm_id = ?1 AND revoked_at IS NULL \
             AND (expires_at IS NULL OR expires_at > ?3) AND (?2 IS NULL OR referred_by = ?2) ORDER BY id"
            ),
            realm_id,
            referred_by,
            now
        )?,
    )
    .await
}

pub async fn multiuse_by_id(db: &D1Database, realm_id: RealmId, id: i64) -> Result<Option<MultiuseRow>> {
    super::first(db, statement!(&format!("SELECT {MULTIUSE_COLUMNS} FROM multiuse_invites WHERE realm_id = ?1 AND id = ?2"), realm_id, id)?)
        .await
}

pub async fn multiuse_by_key(db: &D1Database, realm_id: i64, key: &str) -> Result<Option<MultiuseRow>> {
    super::first(
        db,
        statement!(&format!("SELECT {MULTIUSE_COLUMNS} FROM multiuse_invites WHERE realm_id = ?1 AND link_key = ?2"), realm_id, key)?,
    )
    .await
}

pub async fn revoke_multiuse(db: &D1Database, id: i64, now: i64) -> Result<()> {
    super::run(db, statement!("UPDATE multiuse_invites SET revoked_at = ?2 WHERE id = ?1 AND revoked_at IS NULL", id, now)?).await?;
    Ok(())
}

/// The organization's users with these addresses (any case), active or not.
pub async fn users_with_emails(db: &D1Database, realm_id: i64, emails_json: &str) -> Result<Vec<crate::db::users::UserRow>> {
    super::all(
        db,
        statement!(
            &format!(
                "SELECT {} FROM users u WHERE u.realm_id = ?1 AND lower(u.delivery_email) IN (SELECT lower(value) FROM json_each(?2))",
                crate::db::users::COLUMNS
            ),
            realm_id,
            emails_json
        )?,
    )
    .await
}
