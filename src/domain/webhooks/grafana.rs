//! Grafana (`/api/v1/external/grafana`): Grafana 8 and later (unified alerting) send a
//! list of `alerts`, each its own message under the topic `[alertname]` (the fingerprint
//! when unnamed), with its times, labels, values, annotations and links; Grafana 7's
//! legacy alerts send one rule's `state`, posted under the alert's `title`. The event
//! `only_events` / `exclude_events` match is the alert's status or the legacy state.

use chrono::DateTime;

use super::ordered::Ordered;
use super::payload::Field;
use super::{Delivery, Notice};
use crate::error::{ApiError, ApiResult};

/// What Grafana writes as `endsAt` for an alert still firing.
const NOT_ENDED: &str = "0001-01-01T00:00:00Z";

pub fn render(delivery: &Delivery) -> ApiResult<Vec<Notice>> {
    let json = delivery.json()?;
    let payload = Field::root(&json);
    if !payload.has("alerts") {
        return legacy_alert(&payload).map(|notice| vec![notice]);
    }
    let in_order = Ordered::parse(delivery.body.unwrap_or(""))?;
    let ordered_alerts = in_order.member("alerts").map(Ordered::items).unwrap_or_default();
    let alerts = payload.get("alerts").items()?;
    alerts.iter().zip(ordered_alerts).map(|(alert, ordered)| alert_notice(alert, ordered)).collect()
}

/// One alert of unified alerting; `ordered` is the same alert with its labels, values and
/// annotations in the order Grafana sent them.
fn alert_notice(alert: &Field, ordered: &Ordered) -> ApiResult<Notice> {
    let status = alert.get("status");
    let icon = match status.str()? {
        "firing" => ":alert:",
        "resolved" => ":checkbox:",
        _ => return Err(ApiError::bad_request(format!("Invalid {}", status.path()))),
    };
    let status = status.str()?;
    let mut body = format!("{icon} **{}**\n\n", status.to_uppercase());
    let alertname = alert.get("labels").get("alertname");
    let topic = if alertname.truthy() {
        let name = alertname.str()?;
        body.push_str(&format!("**{name}**\n\n"));
        format!("[{name}]")
    } else {
        format!("[{}]", alert.get("fingerprint").str()?)
    };
    body.push_str(&format!("This alert was fired at {}.", global_time(&alert.get("startsAt"))?));
    let ends = alert.get("endsAt");
    if ends.str()? != NOT_ENDED {
        body.push_str(&format!("\n\nThis alert was resolved at {}.", global_time(&ends)?));
    }
    if alert.get("labels").truthy() {
        body.push_str(&format!("\n\nLabels:\n{}\n", list(alert, ordered, "labels")?));
    }
    if alert.get("values").truthy() {
        body.push_str(&format!("Values:\n{}\n", list(alert, ordered, "values")?));
    } else if alert.get("valueString").truthy() {
        body.push_str(&format!("Values:\n{}\n\n", alert.get("valueString").str()?));
    }
    if alert.get("annotations").truthy() {
        body.push_str(&format!("Annotations:\n{}", list(alert, ordered, "annotations")?));
    }
    for (field, title) in [("generatorURL", "Generator"), ("silenceURL", "Silence"), ("imageURL", "Image")] {
        if alert.get(field).truthy() {
            body.push_str(&format!("\n[{title}]({})", alert.get(field).str()?));
        }
    }
    body.push('\n');
    Ok(Notice { topic, content: body, event: Some(status.to_string()) })
}

/// `- key: value` lines of an object; labels and annotations must be strings, values
/// may be anything and are written as Python writes them.
fn list(alert: &Field, ordered: &Ordered, part: &str) -> ApiResult<String> {
    let mut lines = String::new();
    for (key, value) in ordered.member(part).map(Ordered::members).unwrap_or_default() {
        let text = match value {
            Ordered::String(s) => s.clone(),
            _ if part != "values" => return Err(ApiError::bad_request(format!("{} is not a string", alert.get(part).get(key).path()))),
            other => other.python_str(),
        };
        lines.push_str(&format!("- {key}: {text}\n"));
    }
    Ok(lines)
}

/// Zulip's global time syntax (`<time:…>`) for an ISO 8601 time, to the second, in the
/// sender's offset.
fn global_time(field: &Field) -> ApiResult<String> {
    let text = field.str()?;
    let time = DateTime::parse_from_rfc3339(text).map_err(|_| ApiError::bad_request(format!("Invalid {}", field.path())))?;
    Ok(format!("<time:{}>", time.format("%Y-%m-%dT%H:%M:%S%:z")))
}

/// A Grafana 7 alert: the rule's state, name and link, its message and evaluated metrics.
fn legacy_alert(payload: &Field) -> ApiResult<Notice> {
    let topic = payload.get("title").str()?.to_string();
    let mut matches = String::new();
    if payload.get("evalMatches").truthy() {
        for item in payload.get("evalMatches").items()? {
            let value = match item.get("value").opt_number()? {
                Some(number) => number.to_string(),
                None => "None".into(),
            };
            matches.push_str(&format!("**{}:** {value}\n", item.get("metric").str()?));
        }
    }
    let message = match payload.has("message") {
        true => format!("{}\n\n", payload.get("message").str()?),
        false => String::new(),
    };
    let state_field = payload.get("state");
    let state = state_field.str()?;
    let icon = match state {
        "alerting" => ":alert:",
        "ok" => ":squared_ok:",
        "no_data" | "paused" | "pending" | "unknown" => ":info:",
        _ => return Err(ApiError::bad_request(format!("Invalid {}", state_field.path()))),
    };
    let (rule, url) = (payload.get("ruleName").str()?, payload.get("ruleUrl").str()?);
    let mut body = format!("{icon} **{}**\n\n[{rule}]({url})\n\n{message}{matches}", state.to_uppercase());
    if payload.has("imageUrl") {
        body.push_str(&format!("\n[Click to view visualization]({})", payload.get("imageUrl").str()?));
    }
    Ok(Notice { topic, content: body.trim().to_string(), event: Some(state.to_string()) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn notices(body: &str) -> ApiResult<Vec<Notice>> {
        let none = |_: &str| None;
        render(&Delivery { body: Some(body), form_payload: None, header: &none, url_topic: None, branches: None, param: &none })
    }

    #[test]
    fn times_keep_the_senders_offset_to_the_second() {
        let times = serde_json::json!({"a": "2021-10-12T09:51:03.157076+02:00", "b": "2022-08-31T05:54:04.52289368Z"});
        let root = Field::root(&times);
        assert_eq!(global_time(&root.get("a")).unwrap(), "<time:2021-10-12T09:51:03+02:00>");
        assert_eq!(global_time(&root.get("b")).unwrap(), "<time:2022-08-31T05:54:04+00:00>");
    }

    #[test]
    fn labels_keep_the_order_they_were_sent_in() {
        let body = r#"{"alerts": [{"status": "firing", "labels": {"zone": "eu", "alertname": "Disk"}, "annotations": {},
            "startsAt": "2025-01-02T03:04:05Z", "endsAt": "0001-01-01T00:00:00Z", "fingerprint": "f"}]}"#;
        let notice = notices(body).unwrap().remove(0);
        assert!(notice.content.contains("Labels:\n- zone: eu\n- alertname: Disk\n"), "{}", notice.content);
    }

    #[test]
    fn an_unknown_status_is_invalid() {
        let body = r#"{"alerts": [{"status": "muted", "labels": {}}]}"#;
        assert_eq!(notices(body).unwrap_err().msg, "Invalid payload['alerts'][0]['status']");
    }
}
