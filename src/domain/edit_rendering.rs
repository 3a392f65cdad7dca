//! Rendering edited content: the project's renderer through `domain::rendering`, in the
//! shape the edit path uses.

use std::collections::{BTreeSet, HashMap};

use crate::domain::rendering::render_resolved;
use crate::markdown::Resolved;

#[derive(Debug, Clone, Default)]
pub struct Rendered {
    pub html: String,
    pub is_me_message: bool,
    /// Users mentioned by a non-silent mention (group mentions included), ascending.
    pub mentioned_user_ids: Vec<i64>,
    /// Groups mentioned by a non-silent mention.
    pub mentioned_group_ids: BTreeSet<i64>,
    pub stream_wildcard: bool,
    pub topic_wildcard: bool,
}

/// Renders edited content with what its references resolved to (read in the edit's read
/// batch). `realm_url`: the organization's URL; `translate_emoticons`: the author's setting
/// of that name.
pub fn render(
    content: &str,
    resolved: Resolved,
    group_members: &HashMap<i64, Vec<i64>>,
    realm_url: &str,
    translate_emoticons: bool,
) -> Rendered {
    let (rendered, mentioned) = render_resolved(content, resolved, group_members, realm_url, translate_emoticons);
    Rendered {
        html: rendered.html,
        is_me_message: rendered.is_me_message,
        mentioned_user_ids: mentioned.into_iter().collect(),
        mentioned_group_ids: rendered.mentioned_group_ids,
        stream_wildcard: rendered.stream_wildcard,
        topic_wildcard: rendered.topic_wildcard,
    }
}
