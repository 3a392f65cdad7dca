//! Rendering edited content: the project's renderer through `domain::rendering` (one D1
//! round trip to resolve mentions), in the shape the edit and notification paths use.

use worker::D1Database;

use crate::domain::rendering::render_content;
use crate::error::ApiResult;

#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub html: String,
    pub is_me_message: bool,
    /// Users mentioned by a non-silent mention (group mentions included), ascending.
    pub mentioned_user_ids: Vec<i64>,
    pub stream_wildcard: bool,
    pub topic_wildcard: bool,
}

/// `realm_url`: the organization's URL; `translate_emoticons`: the author's setting of that name.
pub async fn render(db: &D1Database, realm_id: i64, realm_url: &str, content: &str, translate_emoticons: bool) -> ApiResult<Rendered> {
    let (rendered, mentioned) = render_content(db, realm_id, realm_url, content, translate_emoticons).await?;
    Ok(Rendered {
        html: rendered.html,
        is_me_message: rendered.is_me_message,
        mentioned_user_ids: mentioned.into_iter().collect(),
        stream_wildcard: rendered.stream_wildcard,
        topic_wildcard: rendered.topic_wildcard,
    })
}
