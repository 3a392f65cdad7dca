//! Organizations spread over D1 databases (`src/platform/directory.rs`): each organization's rows
//! land in the database the directory names and nowhere else. The test server has two,
//! `DB` (the default organization, and the directory) and `DB_2` (`lear`); these tests read
//! both local databases of the server's state directory (`TEST_SERVER_STATE`, exported by
//! `scripts/with-test-server.sh`) with `wrangler d1 execute`.

mod chat;
mod common;

use chat::send_to_channel;
use common::*;
use serde_json::Value;

const DATABASES: [&str; 2] = ["DB", "DB_2"];

/// The rows each read-only statement answers in one local database of the test server, all
/// in one `wrangler d1 execute` (a node process costing seconds of CPU, so a test asks each
/// database once).
fn query(database: &str, statements: &[String]) -> Vec<Vec<Value>> {
    let out = execute_in_test_database(database, &statements.join("; "));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "wrangler d1 execute {database}: {stdout} {}", String::from_utf8_lossy(&out.stderr));
    let body: Value = serde_json::from_str(&stdout).unwrap_or_else(|_| panic!("not JSON: {stdout}"));
    let answers: Vec<Vec<Value>> =
        body.as_array().expect("one answer per statement").iter().map(|a| a["results"].as_array().cloned().unwrap_or_default()).collect();
    assert_eq!(answers.len(), statements.len(), "{stdout}");
    answers
}

/// The same statements in each database, in `DATABASES` order.
fn in_both(statements: &[String]) -> [Vec<Vec<Value>>; 2] {
    DATABASES.map(|db| query(db, statements))
}

/// How many rows of `table` match `condition`, read back with [`n`]. Markers are
/// alphanumeric (`unique`), so they go into the SQL as literals.
fn count(table: &str, condition: &str) -> String {
    format!("SELECT COUNT(*) AS n FROM {table} WHERE {condition}")
}

fn n(rows: &[Value]) -> i64 {
    rows[0]["n"].as_i64().unwrap()
}

/// The directory's entry of an organization (the directory is in `DB`), read back with
/// [`placement`].
fn directory(string_id: &str) -> String {
    format!("SELECT realm_id, database FROM realm_directory WHERE string_id = '{string_id}'")
}

fn placement(found: &[Value], string_id: &str) -> (i64, String) {
    assert_eq!(found.len(), 1, "the directory records {string_id} once: {found:?}");
    (found[0]["realm_id"].as_i64().unwrap(), found[0]["database"].as_str().unwrap().to_string())
}

#[test]
fn a_message_sent_in_the_default_organization_lands_in_the_first_database_only() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let marker = unique("zulipdb");
    send_to_channel(&hamlet, "Verona", "directory", &marker);
    let [first, second] = in_both(&[count("messages", &format!("content = '{marker}'")), directory("zulip")]);
    assert_eq!([n(&first[0]), n(&second[0])], [1, 0]);
    assert_eq!(placement(&first[1], "zulip").1, "DB");
}

#[test]
fn a_message_sent_in_lear_lands_in_the_second_database_only() {
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    let marker = unique("leardb");
    send_to_channel(&king, "general", "directory", &marker);
    let [first, second] = in_both(&[count("messages", &format!("content = '{marker}'")), directory("lear")]);
    assert_eq!([n(&first[0]), n(&second[0])], [0, 1]);
    assert_eq!(placement(&first[1], "lear").1, "DB_2");
}

#[test]
fn each_organization_is_in_exactly_one_database_under_its_directory_id() {
    let string_ids = ["zulip", "lear", "solo"];
    // Per organization: its directory entry, then its rows in `realms`.
    let statements: Vec<String> =
        string_ids.iter().flat_map(|s| [directory(s), format!("SELECT id FROM realms WHERE string_id = '{s}'")]).collect();
    let answers = in_both(&statements);
    let mut realm_ids = Vec::new();
    for (i, string_id) in string_ids.iter().enumerate() {
        let (realm_id, database) = placement(&answers[0][2 * i], string_id);
        for (db, answer) in DATABASES.iter().zip(&answers) {
            let found = &answer[2 * i + 1];
            if *db == database {
                assert_eq!(found.len(), 1, "{string_id} in {db}");
                assert_eq!(found[0]["id"].as_i64(), Some(realm_id), "{string_id}: the id the directory gave");
            } else {
                assert!(found.is_empty(), "{string_id} also in {db}");
            }
        }
        realm_ids.push(realm_id);
    }
    assert_ne!(realm_ids[0], realm_ids[1], "realm ids are unique across databases");
}

#[test]
fn a_new_organization_lands_in_the_database_the_directory_names() {
    let string_id = unique("dir").to_lowercase();
    let email = format!("owner@{string_id}.example.com");
    let fields = [("string_id", string_id.as_str()), ("name", "Directory Co"), ("owner_email", &email), ("owner_full_name", "Dee Rectory")];
    let body = server_admin_post(Some(DEV_SERVER_ADMIN_SECRET), "/server_admin/organizations", &fields).success();

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

    // Rows never move, so one read of each database after the work sees where all of it landed.
    let answers = in_both(&[
        directory(&string_id),
        count("realms", &format!("string_id = '{string_id}'")),
        count("users", &format!("delivery_email = '{email}'")),
        count("messages", &format!("content = '{marker}'")),
    ]);
    let (realm_id, database) = placement(&answers[0][0], &string_id);
    assert_eq!(body["realm_id"].as_i64(), Some(realm_id), "{body}");
    let expected: Vec<i64> = DATABASES.iter().map(|db| (*db == database) as i64).collect();
    for (statement, what) in [(1, "realms"), (2, "users"), (3, "messages")] {
        let found: Vec<i64> = answers.iter().map(|a| n(&a[statement])).collect();
        assert_eq!(found, expected, "{what} of {string_id}");
    }
}

#[test]
fn ids_of_the_second_database_come_from_its_own_range() {
    // Ids name one thing server-wide, as in Zulip: `DB_2` numbers from 10^12.
    const SECOND_RANGE: i64 = 1_000_000_000_000;
    let king = Client::dev_in(Some("lear"), "king@lear.org");
    let hamlet = Client::dev("hamlet@zulip.com");
    assert!(king.user_id >= SECOND_RANGE, "lear's user id {}", king.user_id);
    assert!(hamlet.user_id < SECOND_RANGE, "zulip's user id {}", hamlet.user_id);
    let lear_message = send_to_channel(&king, "general", "ids", &unique("learid"));
    let zulip_message = send_to_channel(&hamlet, "Verona", "ids", &unique("zulipid"));
    assert!(lear_message >= SECOND_RANGE && zulip_message < SECOND_RANGE, "{lear_message} {zulip_message}");
    // AUTOINCREMENT tables too (the system groups were created with the organization).
    let groups = king.get("/user_groups", &[]).success();
    assert!(groups["user_groups"].as_array().unwrap().iter().all(|g| g["id"].as_i64().unwrap() >= SECOND_RANGE), "{groups}");
}
