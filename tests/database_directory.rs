//! Organizations spread over D1 databases (`src/directory.rs`): each organization's rows
//! land in the database the directory names and nowhere else. The test server has two,
//! `DB` (the default organization, and the directory) and `DB_2` (`lear`); these tests read
//! both local databases of the server's state directory (`TEST_SERVER_STATE`, exported by
//! `scripts/with-test-server.sh`) with `wrangler d1 execute`.

#[allow(dead_code)]
mod chat;
mod common;

use std::process::Command;

use chat::send_to_channel;
use common::*;
use serde_json::Value;

const DATABASES: [&str; 2] = ["DB", "DB_2"];

/// The rows a read-only query answers in one local database of the test server.
fn rows(database: &str, sql: &str) -> Vec<Value> {
    let state = std::env::var("TEST_SERVER_STATE").expect("TEST_SERVER_STATE is not set: run under scripts/with-test-server.sh");
    let out = Command::new("node_modules/.bin/wrangler")
        .args(["d1", "execute", database, "--local", "--json", "--persist-to", &state, "--command", sql])
        .env("WRANGLER_SEND_METRICS", "false")
        .output()
        .expect("wrangler runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "wrangler d1 execute {database}: {stdout} {}", String::from_utf8_lossy(&out.stderr));
    let body: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("not JSON: {stdout}"));
    body[0]["results"].as_array().cloned().unwrap_or_default()
}

/// How many rows of `table` match `condition` in each database, in `DATABASES` order.
/// Markers are alphanumeric (`unique`), so they go into the SQL as literals.
fn counts(table: &str, condition: &str) -> Vec<i64> {
    DATABASES.iter().map(|db| rows(db, &format!("SELECT COUNT(*) AS n FROM {table} WHERE {condition}"))[0]["n"].as_i64().unwrap()).collect()
}

fn placement(string_id: &str) -> (i64, String) {
    let found = rows("DB", &format!("SELECT realm_id, database FROM realm_directory WHERE string_id = '{string_id}'"));
    assert_eq!(found.len(), 1, "the directory records {string_id} once: {found:?}");
    (found[0]["realm_id"].as_i64().unwrap(), found[0]["database"].as_str().unwrap().to_string())
}

#[test]
fn a_message_sent_in_the_default_organization_lands_in_the_first_database_only() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let marker = unique("zulipdb");
    send_to_channel(&hamlet, "Verona", "directory", &marker);
    assert_eq!(counts("messages", &format!("content = '{marker}'")), vec![1, 0]);
    assert_eq!(placement("zulip").1, "DB");
}

#[test]
fn a_message_sent_in_lear_lands_in_the_second_database_only() {
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    let marker = unique("leardb");
    send_to_channel(&king, "general", "directory", &marker);
    assert_eq!(counts("messages", &format!("content = '{marker}'")), vec![0, 1]);
    assert_eq!(placement("lear").1, "DB_2");
}

#[test]
fn each_organization_is_in_exactly_one_database_under_its_directory_id() {
    for string_id in ["zulip", "lear", "solo"] {
        let (realm_id, database) = placement(string_id);
        let found: Vec<Vec<Value>> =
            DATABASES.iter().map(|db| rows(db, &format!("SELECT id FROM realms WHERE string_id = '{string_id}'"))).collect();
        for (db, found) in DATABASES.iter().zip(&found) {
            if *db == database {
                assert_eq!(found.len(), 1, "{string_id} in {db}");
                assert_eq!(found[0]["id"].as_i64(), Some(realm_id), "{string_id}: the id the directory gave");
            } else {
                assert!(found.is_empty(), "{string_id} also in {db}");
            }
        }
    }
    assert_ne!(placement("zulip").0, placement("lear").0, "realm ids are unique across databases");
}

#[test]
fn a_new_organization_lands_in_the_database_the_directory_names() {
    let string_id = unique("dir").to_lowercase();
    let email = format!("owner@{string_id}.example.com");
    let url = format!("{}/api/v1/server_admin/organizations", server_url());
    let response = ureq::post(&url)
        .set("Authorization", "Bearer dev-server-admin-secret")
        .send_form(&[("string_id", &string_id), ("name", "Directory Co"), ("owner_email", &email), ("owner_full_name", "Dee Rectory")])
        .expect("created");
    let body: Value = serde_json::from_str(&response.into_string().unwrap()).unwrap();
    let (realm_id, database) = placement(&string_id);
    assert_eq!(body["realm_id"].as_i64(), Some(realm_id), "{body}");
    let expected: Vec<i64> = DATABASES.iter().map(|db| (*db == database) as i64).collect();
    assert_eq!(counts("realms", &format!("string_id = '{string_id}'")), expected);
    assert_eq!(counts("users", &format!("delivery_email = '{email}'")), expected);

    // Its owner's work lands there too.
    let password = body["owner"]["password"].as_str().unwrap();
    let login =
        request("POST", "/fetch_api_key", &[], Some(Body::Form(&[("username", &email), ("password", password)])), None, Some(&string_id))
            .success();
    let owner = Client {
        email: email.clone(),
        api_key: login["api_key"].as_str().unwrap().to_string(),
        user_id: login["user_id"].as_i64().unwrap(),
        realm: Some(string_id.clone()),
    };
    let marker = unique("newdb");
    send_to_channel(&owner, "general", "directory", &marker);
    assert_eq!(counts("messages", &format!("content = '{marker}'")), expected);
}

#[test]
fn the_same_user_id_in_two_databases_has_two_different_api_keys() {
    // Ids are unique only within a database: find a user id both development
    // organizations use, and check that neither user's key opens the other's account.
    let lear_ids: Vec<i64> =
        rows("DB_2", "SELECT id FROM users WHERE email LIKE '%@lear.org'").iter().filter_map(|r| r["id"].as_i64()).collect();
    let zulip = rows(
        "DB",
        &format!(
            "SELECT id, email FROM users WHERE id IN ({}) AND email LIKE '%@zulip.com'",
            lear_ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
        ),
    );
    let shared = zulip.first().expect("a user id used in both databases");
    let id = shared["id"].as_i64().unwrap();
    let lear_email = rows("DB_2", &format!("SELECT email FROM users WHERE id = {id}"))[0]["email"].as_str().unwrap().to_string();
    let zulip_user = Client::dev(shared["email"].as_str().unwrap());
    let lear_user = Client::dev_in(Some("lear"), &lear_email);
    assert_eq!(zulip_user.user_id, lear_user.user_id);
    assert_ne!(zulip_user.api_key, lear_user.api_key);
}
