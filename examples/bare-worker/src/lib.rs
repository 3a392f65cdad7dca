//! The bare worker: each route is one platform operation and nothing else, the floor that
//! `make bench` (examples/bench/) sets the server's figures beside. Paths mirror the API's
//! (`/api/v1/...`) and answers are Zulip-shaped, so the bench calls both alike.

use worker::{event, wasm_bindgen::JsValue, Context, D1Database, Env, Method, Request, Response, Result};

/// A message-shaped row: the columns a message fetch reads, with contents of a chat
/// message's size.
const ROWS_SCHEMA: &str = "CREATE TABLE IF NOT EXISTS rows (
    id INTEGER PRIMARY KEY,
    sender_id INTEGER NOT NULL,
    recipient_id INTEGER NOT NULL,
    topic TEXT NOT NULL,
    content TEXT NOT NULL,
    rendered_content TEXT NOT NULL,
    date_sent INTEGER NOT NULL,
    flags INTEGER NOT NULL
)";
const ROW_COUNT: i64 = 110;

#[event(fetch)]
async fn fetch(req: Request, env: Env, _ctx: Context) -> Result<Response> {
    let db = env.d1("DB")?;
    match (req.method(), req.path().as_str()) {
        (Method::Post, "/api/v1/setup") => setup(&db).await?,
        (Method::Get, "/api/v1/noop") => {}
        // One read of one row.
        (Method::Get, "/api/v1/d1_read") => {
            db.prepare("SELECT id, sender_id, topic FROM rows WHERE id = ?1")
                .bind(&[JsValue::from(1)])?
                .first::<serde_json::Value>(None)
                .await?;
        }
        // One read of the newest 100 rows, decoded (not sent).
        (Method::Get, "/api/v1/d1_read_rows") => {
            let rows = db.prepare("SELECT * FROM rows ORDER BY id DESC LIMIT 100").all().await?.results::<serde_json::Value>()?;
            return Response::from_json(&serde_json::json!({ "result": "success", "msg": "", "rows": rows.len() }));
        }
        // One batch of five writes that leave the row as it was.
        (Method::Post, "/api/v1/d1_batch") => {
            let statements = (0..5)
                .map(|_| db.prepare("UPDATE rows SET flags = flags WHERE id = ?1").bind(&[JsValue::from(1)]))
                .collect::<Result<Vec<_>>>()?;
            db.batch(statements).await?;
        }
        _ => return Response::error("Not found", 404),
    }
    Response::from_json(&serde_json::json!({ "result": "success", "msg": "" }))
}

/// Creates the table and its rows (idempotent).
async fn setup(db: &D1Database) -> Result<()> {
    // `exec` reads one statement per line.
    db.exec(&ROWS_SCHEMA.replace('\n', " ")).await?;
    const INSERT: &str = "INSERT OR IGNORE INTO rows (id, sender_id, recipient_id, topic, content, rendered_content, date_sent, flags)
         VALUES (?1, 8, 12, 'bench', ?2, ?3, 1700000000 + ?1, 0)";
    let content = "A benchmark message with **some** Markdown, `code`, a [link](https://example.com) and :smile:.";
    let rendered = "<p>A benchmark message with <strong>some</strong> Markdown, <code>code</code>, a <a href=\"https://example.com\">link</a> and <span class=\"emoji\">:smile:</span>.</p>";
    let statements = (1..=ROW_COUNT)
        .map(|id| db.prepare(INSERT).bind(&[JsValue::from(id as f64), JsValue::from(content), JsValue::from(rendered)]))
        .collect::<Result<Vec<_>>>()?;
    db.batch(statements).await?;
    Ok(())
}
