//! Prometheus Alertmanager (`/api/v1/external/alertmanager`): each alert's `name` label
//! (the URL's `name`, default `instance`) is the topic, and its `desc` label (the URL's
//! `desc`, default `alertname`) the text, with a link to its graph; one message per topic
//! and status, firing before resolved, a list when several alerts share them.

use super::payload::Field;
use super::{cut_topic, Delivery, Notice};
use crate::error::{ApiError, ApiResult};

/// The alerts of one topic, by status.
struct Topic {
    name: String,
    firing: Vec<String>,
    resolved: Vec<String>,
}

pub fn render(delivery: &Delivery) -> ApiResult<Vec<Notice>> {
    let payload = delivery.json()?;
    let name_field = (delivery.param)("name").unwrap_or_else(|| "instance".into());
    let desc_field = (delivery.param)("desc").unwrap_or_else(|| "alertname".into());
    let mut topics: Vec<Topic> = Vec::new();
    for alert in Field::root(&payload).get("alerts").items()? {
        let name = label(&alert, &name_field)?.unwrap_or_else(|| "(unknown)".into());
        let desc = label(&alert, &desc_field)?.unwrap_or_else(|| format!("<missing field: {desc_field}>"));
        let url = alert.get("generatorURL").str()?.replace("tab=1", "tab=0");
        let body = format!("{desc} ([graph]({url}))");
        let index = match topics.iter().position(|t| t.name == name) {
            Some(index) => index,
            None => {
                topics.push(Topic { name, firing: Vec::new(), resolved: Vec::new() });
                topics.len() - 1
            }
        };
        let status = alert.get("status");
        match status.str()? {
            "firing" => topics[index].firing.push(body),
            "resolved" => topics[index].resolved.push(body),
            _ => return Err(ApiError::bad_request(format!("{} is not firing or resolved", status.path()))),
        }
    }
    let mut notices = Vec::new();
    for topic in topics {
        for (icon, title, bodies) in [(":alert:", "FIRING", &topic.firing), (":squared_ok:", "Resolved", &topic.resolved)] {
            let content = match bodies.as_slice() {
                [] => continue,
                [one] => format!("{icon} **{title}** {one}"),
                many => format!("{icon} **{title}**\n{}", many.iter().map(|m| format!("* {m}")).collect::<Vec<_>>().join("\n")),
            };
            notices.push(Notice { topic: cut_topic(&topic.name), content, event: None });
        }
    }
    Ok(notices)
}

/// An alert's label, else its annotation, of this name (a string when present).
fn label(alert: &Field, name: &str) -> ApiResult<Option<String>> {
    for part in ["labels", "annotations"] {
        let holder = alert.get(part);
        if holder.has(name) {
            return Ok(Some(holder.get(name).str()?.to_string()));
        }
    }
    Ok(None)
}
