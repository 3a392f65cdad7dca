//! Slack-compatible incoming webhooks (`/api/v1/external/slack_incoming`): Slack's
//! message payload (`text`, `blocks`, `attachments`), as JSON or as a form's `payload`,
//! rendered in Zulip's Markdown the way Zulip's integration renders it.

use std::sync::OnceLock;

use super::payload::{self, Field};
use super::{Delivery, Notice};
use crate::error::{ApiError, ApiResult};

pub fn render(delivery: &Delivery) -> ApiResult<Option<Notice>> {
    let text = match (delivery.body, delivery.form_payload) {
        (Some(body), _) => body,
        (None, Some(form)) => form,
        (None, None) => return Err(ApiError::missing_argument("payload")),
    };
    let json = payload::parse(text)?;
    let p = Field::root(&json);
    let topic = match delivery.url_topic {
        Some(topic) => topic.to_string(),
        None if p.has("channel") => p.get("channel").str()?.trim_start_matches(['@', '#']).to_string(),
        None => "(no topic)".to_string(),
    };
    let mut pieces = Vec::new();
    if p.get("blocks").truthy() {
        for block in p.get("blocks").items()? {
            pieces.push(render_block(&block)?);
        }
    }
    if p.get("attachments").truthy() {
        for attachment in p.get("attachments").items()? {
            pieces.push(render_attachment(&attachment)?);
        }
    }
    let mut body = join_pieces(&pieces);
    if body.is_empty() && p.get("text").truthy() {
        if p.get("icon_emoji").truthy() {
            body = format!("{} ", p.get("icon_emoji").str()?);
        }
        body.push_str(p.get("text").str()?);
        body = body.trim().to_string();
    }
    if body.is_empty() {
        return Ok(None);
    }
    Ok(Some(Notice { topic, content: replace_formatting(replace_links(&body).trim()), event: None }))
}

/// Non-blank pieces, trimmed, a blank line apart.
fn join_pieces(pieces: &[String]) -> String {
    pieces.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).collect::<Vec<_>>().join("\n\n")
}

/// The `text` of a text object (`plain_text`, or `mrkdwn` unless `plain_only`).
fn text_object(field: &Field, plain_only: bool) -> ApiResult<String> {
    let kind = field.get("type").str()?;
    if kind != "plain_text" && (plain_only || kind != "mrkdwn") {
        return Err(ApiError::bad_request(format!("Invalid {}", field.get("type").path())));
    }
    Ok(field.get("text").str()?.to_string())
}

fn render_block(block: &Field) -> ApiResult<String> {
    let kind = block.get("type").str()?;
    Ok(match kind {
        "context" if block.get("elements").truthy() => {
            let mut pieces = Vec::new();
            for element in block.get("elements").items()? {
                match element.get("type").str()? {
                    "image" => pieces.push(render_element(&element)?),
                    _ => pieces.push(text_object(&element, false)?),
                }
            }
            join_pieces(&pieces)
        }
        "divider" => "----".into(),
        "header" => format!("## {}", text_object(&block.get("text"), true)?),
        "image" => {
            let url = block.get("image_url").str()?;
            let alt = if block.has("title") { text_object(&block.get("title"), true)? } else { block.get("alt_text").str()?.to_string() };
            format!("[{alt}]({url})")
        }
        "section" => render_section(block)?,
        "actions" | "context" | "input" => String::new(),
        _ => return Err(ApiError::bad_request(format!("Invalid {}", block.get("type").path()))),
    })
}

fn render_section(block: &Field) -> ApiResult<String> {
    let mut pieces = Vec::new();
    if block.has("text") {
        pieces.push(text_object(&block.get("text"), false)?);
    }
    if block.has("accessory") {
        pieces.push(render_element(&block.get("accessory"))?);
    }
    if block.has("fields") {
        let fields = block.get("fields").items()?.iter().map(|f| text_object(f, false)).collect::<ApiResult<Vec<_>>>()?;
        if fields.len() == 1 {
            pieces.push(fields[0].clone());
        } else {
            // A table cannot hold newlines or pipes; Slack shows the fields in two columns.
            let cells: Vec<String> = fields.iter().map(|f| f.replace(['\n', '|'], " ")).collect();
            let mut table = String::from("| | |\n|-|-|\n");
            for pair in cells.chunks(2) {
                table.push_str(&format!("| {} | {} |\n", pair[0], pair.get(1).map_or("", String::as_str)));
            }
            pieces.push(table);
        }
    }
    Ok(join_pieces(&pieces))
}

/// Only images among a block's elements have a Markdown form.
fn render_element(element: &Field) -> ApiResult<String> {
    if element.get("type").str()? != "image" {
        return Ok(String::new());
    }
    Ok(format!("[{}]({})", element.get("alt_text").str()?, element.get("image_url").str()?))
}

fn render_attachment(attachment: &Field) -> ApiResult<String> {
    let mut pieces = Vec::new();
    let text = |key: &str| -> ApiResult<Option<String>> {
        let field = attachment.get(key);
        Ok(if field.truthy() { Some(field.str()?.to_string()) } else { None })
    };
    if let Some(title) = text("title")? {
        pieces.push(match text("title_link")? {
            Some(link) => format!("## [{title}]({link})"),
            None => format!("## {title}"),
        });
    }
    pieces.extend(text("pretext")?);
    pieces.extend(text("text")?);
    if attachment.has("fields") {
        let mut lines = Vec::new();
        for field in attachment.get("fields").items()? {
            let (title, value) = (field.get("title"), field.get("value"));
            match (title.truthy(), value.truthy()) {
                (true, true) => lines.push(format!("*{}*: {}", title.str()?, value.str()?)),
                (true, false) => lines.push(format!("*{}*", title.str()?)),
                (false, true) => lines.push(value.str()?.to_string()),
                (false, false) => {}
            }
        }
        pieces.push(lines.join("\n"));
    }
    if attachment.get("blocks").truthy() {
        for block in attachment.get("blocks").items()? {
            pieces.push(render_block(&block)?);
        }
    }
    if let Some(url) = text("image_url")? {
        pieces.push(format!("[]({url})"));
    }
    pieces.extend(text("footer")?);
    if attachment.get("ts").truthy() {
        pieces.push(format!("<time:{}>", attachment.get("ts").int()?));
    }
    Ok(join_pieces(&pieces))
}

/// Slack's `<url|label>` links as Markdown links.
fn replace_links(text: &str) -> String {
    static LINK: OnceLock<regex::Regex> = OnceLock::new();
    let link = LINK.get_or_init(|| regex::Regex::new(r"<(\w+?://.*?)\|(.*?)>").expect("a valid pattern"));
    link.replace_all(text, "[$2]($1)").into_owned()
}

/// Slack's `*bold*` and `_italic_` as Zulip's `**bold**` and `*italic*`.
fn replace_formatting(text: &str) -> String {
    static BOLD: OnceLock<fancy_regex::Regex> = OnceLock::new();
    static ITALIC: OnceLock<fancy_regex::Regex> = OnceLock::new();
    let bold =
        BOLD.get_or_init(|| fancy_regex::Regex::new(r"([^\w]|^)\*(?!\s+)([^\*\n]+)(?<!\s)\*((?=[^\w])|$)").expect("a valid pattern"));
    let italic =
        ITALIC.get_or_init(|| fancy_regex::Regex::new(r"([^\w]|^)[_](?!\s+)([^\_\n]+)(?<!\s)[_]((?=[^\w])|$)").expect("a valid pattern"));
    let text = bold.replace_all(text, "$1**$2**$3");
    italic.replace_all(&text, "$1*$2*$3").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slack_markup_becomes_zulip_markdown() {
        assert_eq!(
            replace_formatting(&replace_links("*Deploy* of <https://x.io|site> _done_")),
            "**Deploy** of [site](https://x.io) *done*"
        );
        assert_eq!(replace_formatting("a*b*c and * not bold *"), "a*b*c and * not bold *");
    }
}
