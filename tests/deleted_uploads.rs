//! R2 keeps no history, so a deleted upload's bytes stay in the bucket for a grace period
//! (D1 Time Travel's 30 days): a restore of the databases to before the deletion finds
//! every file its messages link. The API forgets the upload at once.

mod common;
mod upload_support;
use common::*;
use upload_support::*;

/// The bytes the development bucket holds under `key`, read by wrangler from the running
/// server's local state, if any.
fn stored_bytes(key: &str) -> Option<Vec<u8>> {
    let state = std::env::var("TEST_SERVER_STATE").expect("TEST_SERVER_STATE is not set: run with scripts/with-test-server.sh");
    let out = std::process::Command::new("node_modules/.bin/wrangler")
        .args(["r2", "object", "get", &format!("team-chat-uploads/{key}"), "--local", "--persist-to", &state, "--pipe"])
        .output()
        .expect("wrangler runs");
    out.status.success().then_some(out.stdout)
}

#[test]
fn a_deleted_upload_is_gone_from_the_api_and_its_bytes_stay_for_the_grace_period() {
    let hamlet = Client::dev("hamlet@zulip.com");
    let bytes = unique("kept for a restore ").into_bytes();
    let url = upload(&hamlet, "kept.txt", &bytes);
    let path_id = url.strip_prefix("/user_uploads/").unwrap().to_string();
    assert_eq!(stored_bytes(&path_id).as_deref(), Some(bytes.as_slice()));

    let listed = hamlet.get("/attachments", &[]).success();
    let id = listed["attachments"].as_array().unwrap().iter().find(|a| a["path_id"] == path_id.as_str()).unwrap()["id"].as_i64().unwrap();
    hamlet.delete(&format!("/attachments/{id}"), &[]).success();

    assert_eq!(download(Some(&hamlet), &url, &[]).status, 404);
    assert_eq!(stored_bytes(&path_id).as_deref(), Some(bytes.as_slice()), "the bytes are kept for a restore");
}
