//! The development organizations, created when `DEVELOPMENT = "true"` and they are missing:
//! Zulip's usual development users in the default organization, and a second organization
//! (`lear`) so that isolation between organizations can be tried.
//!
//! Every development user's password is [`DEV_PASSWORD`] (docs/authentication.md).
//!
//! The default organization lives in the first database and `lear` in the second listed
//! in `D1_DATABASES` (`crate::platform::directory`), so development and tests run across two
//! databases; `solo` goes where the directory places new organizations.

use std::sync::atomic::{AtomicBool, Ordering};

use worker::{D1Database, Env};

use crate::db::organizations::{self, FirstChannel, FirstUser};
use crate::db::{self, realms};
use crate::error::ApiResult;
use crate::model::Role;
use crate::platform::directory::{self, DIRECTORY_DATABASE};
use crate::secrets;

pub const DEV_PASSWORD: &str = "dev-password";

struct SeedUser {
    email: &'static str,
    full_name: &'static str,
    role: Role,
    can_create_users: bool,
}

struct SeedRealm {
    string_id: &'static str,
    name: &'static str,
    users: &'static [SeedUser],
    channels: &'static [FirstChannel<'static>],
}

const fn user(email: &'static str, full_name: &'static str, role: Role) -> SeedUser {
    SeedUser { email, full_name, role, can_create_users: false }
}

const ZULIP_USERS: &[SeedUser] = &[
    user("desdemona@zulip.com", "Desdemona", Role::Owner),
    SeedUser { email: "iago@zulip.com", full_name: "Iago", role: Role::Administrator, can_create_users: true },
    user("shiva@zulip.com", "Shiva", Role::Moderator),
    user("hamlet@zulip.com", "King Hamlet", Role::Member),
    user("othello@zulip.com", "Othello, the Moor of Venice", Role::Member),
    user("cordelia@zulip.com", "Cordelia, Lear's daughter", Role::Member),
    user("prospero@zulip.com", "Prospero from The Tempest", Role::Member),
    user("polonius@zulip.com", "Polonius", Role::Guest),
    user("aaron@zulip.com", "aaron", Role::Member),
    user("ZOE@zulip.com", "Zoe", Role::Member),
    // Zulip's `populate_db --extra-users`: enough people for rules with thresholds (wildcard
    // mentions need more than 15 subscribers or topic participants).
    user("extrauser0@zulip.com", "Extra User 0", Role::Member),
    user("extrauser1@zulip.com", "Extra User 1", Role::Member),
    user("extrauser2@zulip.com", "Extra User 2", Role::Member),
    user("extrauser3@zulip.com", "Extra User 3", Role::Member),
    user("extrauser4@zulip.com", "Extra User 4", Role::Member),
    user("extrauser5@zulip.com", "Extra User 5", Role::Member),
    user("extrauser6@zulip.com", "Extra User 6", Role::Member),
    user("extrauser7@zulip.com", "Extra User 7", Role::Member),
];

const EVERYONE_BUT_GUESTS: &[&str] = &[
    "desdemona@zulip.com",
    "iago@zulip.com",
    "shiva@zulip.com",
    "hamlet@zulip.com",
    "othello@zulip.com",
    "cordelia@zulip.com",
    "prospero@zulip.com",
];

const ZULIP_CHANNELS: &[FirstChannel<'static>] = &[
    FirstChannel {
        name: "Verona",
        description: "A city in Italy",
        invite_only: false,
        color: "#76ce90",
        subscribers: &[
            "desdemona@zulip.com",
            "iago@zulip.com",
            "shiva@zulip.com",
            "hamlet@zulip.com",
            "othello@zulip.com",
            "cordelia@zulip.com",
            "prospero@zulip.com",
            "polonius@zulip.com",
        ],
    },
    FirstChannel {
        name: "Denmark",
        description: "A Scandinavian country",
        invite_only: false,
        color: "#fae589",
        subscribers: &[
            "desdemona@zulip.com",
            "iago@zulip.com",
            "shiva@zulip.com",
            "hamlet@zulip.com",
            "othello@zulip.com",
            "cordelia@zulip.com",
            "prospero@zulip.com",
            "polonius@zulip.com",
        ],
    },
    FirstChannel {
        name: "Scotland",
        description: "Located in the United Kingdom",
        invite_only: false,
        color: "#a6c7e5",
        subscribers: EVERYONE_BUT_GUESTS,
    },
    FirstChannel {
        name: "Venice",
        description: "A northeastern Italian city",
        invite_only: false,
        color: "#b0a5fd",
        subscribers: &["iago@zulip.com", "hamlet@zulip.com", "othello@zulip.com"],
    },
    FirstChannel {
        name: "Rome",
        description: "Yet another Italian city",
        invite_only: false,
        color: "#e79ab5",
        subscribers: &["desdemona@zulip.com", "iago@zulip.com", "othello@zulip.com"],
    },
    FirstChannel {
        name: "core team",
        description: "A private channel for the core team",
        invite_only: true,
        color: "#bfd56f",
        subscribers: &["desdemona@zulip.com", "iago@zulip.com", "hamlet@zulip.com"],
    },
];

const LEAR_USERS: &[SeedUser] = &[
    SeedUser { email: "king@lear.org", full_name: "King Lear", role: Role::Owner, can_create_users: true },
    user("cordelia@lear.org", "Cordelia, Lear's daughter", Role::Member),
    user("goneril@lear.org", "Goneril", Role::Member),
];

const LEAR_CHANNELS: &[FirstChannel<'static>] = &[FirstChannel {
    name: "general",
    description: "Everyone in the kingdom",
    invite_only: false,
    color: "#76ce90",
    subscribers: &["king@lear.org", "cordelia@lear.org", "goneril@lear.org"],
}];

/// An organization with a single user, where the last-user rules can be tried.
const SOLO_USERS: &[SeedUser] = &[SeedUser { email: "solo@solo.org", full_name: "Solo", role: Role::Owner, can_create_users: false }];

static SEEDED: AtomicBool = AtomicBool::new(false);

/// Creates the development organizations if they are missing. Checked once per isolate.
pub async fn ensure_seeded(env: &Env, default_realm: &str) -> ApiResult<()> {
    if SEEDED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let listed = directory::listed_databases(env);
    let second = listed.iter().find(|b| b.as_str() != DIRECTORY_DATABASE).map(String::as_str);
    let realms = [
        (SeedRealm { string_id: "", name: "Zulip Dev", users: ZULIP_USERS, channels: ZULIP_CHANNELS }, Some(DIRECTORY_DATABASE)),
        (
            SeedRealm { string_id: "lear", name: "Lear & Co.", users: LEAR_USERS, channels: LEAR_CHANNELS },
            second.or(Some(DIRECTORY_DATABASE)),
        ),
        (SeedRealm { string_id: "solo", name: "Solo", users: SOLO_USERS, channels: &[] }, None),
    ];
    for (realm, database) in &realms {
        let string_id = if realm.string_id.is_empty() { default_realm } else { realm.string_id };
        let placement = directory::place(env, string_id, *database).await?;
        let db = directory::database(env, &placement.database)?;
        if realms::by_string_id(&db, string_id).await?.is_none() {
            seed_realm(&db, placement.realm_id, string_id, realm).await?;
        }
    }
    SEEDED.store(true, Ordering::Relaxed);
    Ok(())
}

/// One atomic batch of idempotent inserts: concurrent first requests cannot half-seed.
async fn seed_realm(db: &D1Database, realm_id: i64, string_id: &str, realm: &SeedRealm) -> ApiResult<()> {
    let password_hash = secrets::hash_password(DEV_PASSWORD).await?;
    let users: Vec<FirstUser> = realm
        .users
        .iter()
        .map(|u| FirstUser {
            email: u.email,
            full_name: u.full_name,
            role: u.role,
            password_hash: &password_hash,
            can_create_users: u.can_create_users,
        })
        .collect();
    let batch = organizations::create_stmts(realm_id, string_id, realm.name, &users, realm.channels, db::now())?;
    db::run_batch(db, batch).await?;
    Ok(())
}
