//! `navigation_views`: each user's sidebar views, keyed by URL fragment.

use serde::Deserialize;
use worker::{D1Database, Result};

use crate::db::statement::{statement, Statement};
use crate::model::ids::{RealmId, UserId};

#[derive(Debug, Clone, Deserialize)]
pub struct NavigationViewRow {
    pub fragment: String,
    pub is_pinned: i64,
    pub name: Option<String>,
}

/// A user's views in creation order.
pub fn for_user_stmt(user_id: i64) -> Result<Statement> {
    statement!("SELECT fragment, is_pinned, name FROM navigation_views WHERE user_id = ?1 ORDER BY id", user_id)
}

pub async fn for_user(db: &D1Database, user_id: i64) -> Result<Vec<NavigationViewRow>> {
    super::all(db, for_user_stmt(user_id)?).await
}

/// Inserts a view unless the user already has one with this fragment or (non-null) name;
/// answers the new row, or none when it already exists.
pub async fn insert(
    db: &D1Database,
    realm_id: RealmId,
    user_id: UserId,
    fragment: &str,
    is_pinned: bool,
    name: Option<&str>,
) -> Result<Option<NavigationViewRow>> {
    super::first(
        db,
        statement!(
            "INSERT INTO navigation_views (realm_id, user_id, fragment, is_pinned, name) \
         SELECT ?1, ?2, ?3, ?4, ?5 WHERE NOT EXISTS (SELECT 1 FROM navigation_views \
             WHERE user_id = ?2 AND (fragment = ?3 OR (?5 IS NOT NULL AND name = ?5))) \
         RETURNING fragment, is_pinned, name",
            realm_id,
            user_id,
            fragment,
            is_pinned as i64,
            name
        )?,
    )
    .await
}

/// What an update needs to know first: whether the view exists and whether the new name is
/// taken by any of the user's views.
#[derive(Debug, Clone, Deserialize)]
pub struct UpdateCheck {
    pub found: i64,
    pub name_taken: i64,
}

pub fn update_check_stmt(user_id: i64, fragment: &str, name: Option<&str>) -> Result<Statement> {
    statement!(
        "SELECT EXISTS (SELECT 1 FROM navigation_views WHERE user_id = ?1 AND fragment = ?2) AS found, \
         EXISTS (SELECT 1 FROM navigation_views WHERE user_id = ?1 AND ?3 IS NOT NULL AND name = ?3) AS name_taken",
        user_id,
        fragment,
        name
    )
}

/// Changes the given fields, unless the new name is taken (checked in the same statement, so
/// that the batch with [`update_check_stmt`] is consistent).
pub fn update_stmt(user_id: i64, fragment: &str, is_pinned: Option<bool>, name: Option<&str>) -> Result<Statement> {
    statement!(
        "UPDATE navigation_views SET is_pinned = COALESCE(?3, is_pinned), name = COALESCE(?4, name) \
         WHERE user_id = ?1 AND fragment = ?2 \
         AND NOT EXISTS (SELECT 1 FROM navigation_views WHERE user_id = ?1 AND ?4 IS NOT NULL AND name = ?4)",
        user_id,
        fragment,
        is_pinned.map(|p| p as i64),
        name
    )
}

/// Deletes the user's view; answers whether there was one.
pub async fn delete(db: &D1Database, user_id: i64, fragment: &str) -> Result<bool> {
    #[derive(Deserialize)]
    struct Gone {
        #[allow(dead_code)]
        fragment: String,
    }
    let row: Option<Gone> = super::first(
        db,
        statement!("DELETE FROM navigation_views WHERE user_id = ?1 AND fragment = ?2 RETURNING fragment", user_id, fragment)?,
    )
    .await?;
    Ok(row.is_some())
}
