//! A narrow's terms as SQL conditions over `messages m` (with the caller's `user_messages um`
//! left-joined and `channels c` left-joined), with their bound values. Names are resolved
//! by subqueries, so a narrow costs no extra round trip.

use serde_json::Value;

use crate::error::{ApiError, ApiResult};
use crate::model::ids::{RealmId, UserId};
use crate::model::message_flags::{ANY_MENTION, HAS_ALERT_WORD, READ, STARRED};
use crate::model::narrow::{HasOperand, IsOperand, Operator, Term};
use crate::model::recipients::RecipientType;
use crate::model::VisibilityPolicy;
use crate::params::parse_int;

/// A value a narrow binds; kept as plain data until it is bound so the builder is testable
/// off the Workers runtime.
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    Number(f64),
    Text(String),
}

impl SqlValue {
    fn text(s: &str) -> SqlValue {
        SqlValue::Text(s.to_string())
    }

    pub fn to_value(&self) -> Value {
        match self {
            SqlValue::Number(n) => Value::from(*n),
            SqlValue::Text(s) => Value::from(s.as_str()),
        }
    }
}

/// SQL built from a narrow: conditions joined by AND, and the values they bind, numbered
/// from `first_param`.
pub struct NarrowSql {
    pub conditions: Vec<String>,
    pub params: Vec<SqlValue>,
    next: usize,
    /// A positive channel term is present: the channel's whole readable history is in
    /// scope, not only the messages the caller received.
    pub has_channel: bool,
    /// A search term is present (messages get `match_content` / `match_subject`).
    pub has_search: bool,
    /// The FTS5 query of the positive search terms (all of them, one query).
    pub search_query: Option<String>,
    /// Where that query is bound ("?N"): the caller joins the index on it, driving the
    /// read from the index in id order (a condition on `messages` would make SQLite read
    /// every match, or every message, before the newest ones).
    pub search_param: Option<String>,
    /// The index of that value in `params`.
    search_at: usize,
}

impl NarrowSql {
    fn param(&mut self, value: SqlValue) -> String {
        self.params.push(value);
        let p = format!("?{}", self.next);
        self.next += 1;
        p
    }
    /// Adds a positive search's keywords to the one search query.
    fn add_search(&mut self, query: String) {
        match self.search_query.take() {
            Some(earlier) => {
                let combined = format!("{earlier} {query}");
                self.params[self.search_at] = SqlValue::text(&combined);
                self.search_query = Some(combined);
            }
            None => {
                self.search_at = self.params.len();
                self.search_param = Some(self.param(SqlValue::text(&query)));
                self.search_query = Some(query);
            }
        }
    }
    fn push(&mut self, condition: String, negated: bool) {
        self.conditions.push(if negated { format!("NOT ({condition})") } else { condition });
    }
}

fn operand_str(term: &Term) -> ApiResult<String> {
    match &term.operand {
        Value::String(s) => Ok(s.clone()),
        Value::Number(n) => Ok(n.to_string()),
        _ => Err(ApiError::bad_request(format!("Invalid narrow operand for {}", term.operator))),
    }
}

/// Builds the SQL of `terms` for `user_id` in `realm_id`. `empty_topic_display_name` is the
/// realm's name of the empty topic (a topic operand naming it means "").
pub fn narrow_sql(
    terms: &[Term],
    realm_id: RealmId,
    user_id: UserId,
    empty_topic_display_name: &str,
    first_param: usize,
) -> ApiResult<NarrowSql> {
    let mut sql = NarrowSql {
        conditions: Vec::new(),
        params: Vec::new(),
        next: first_param,
        has_channel: false,
        has_search: false,
        search_query: None,
        search_param: None,
        search_at: 0,
    };
    let realm = realm_id.0 as f64;
    for term in terms {
        match Operator::parse(&term.operator)? {
            Operator::Channel => {
                let cond = channel_condition(&mut sql, term, realm)?;
                if !term.negated {
                    sql.has_channel = true;
                }
                sql.push(cond, term.negated);
            }
            Operator::Topic => {
                let mut topic = operand_str(term)?;
                if topic == crate::model::topics::NO_TOPIC || topic == empty_topic_display_name {
                    topic = String::new();
                }
                let p = sql.param(SqlValue::text(&topic));
                sql.push(format!("(m.channel_id IS NOT NULL AND m.topic = {p} COLLATE NOCASE)"), term.negated);
            }
            Operator::Sender => {
                let cond = sender_condition(&mut sql, term, realm, user_id)?;
                sql.push(cond, term.negated);
            }
            Operator::Dm => {
                let cond = dm_condition(&mut sql, term, realm, user_id)?;
                sql.push(cond, term.negated);
            }
            Operator::Is => {
                let cond = is_condition(&mut sql, term, user_id)?;
                sql.push(cond, term.negated);
            }
            Operator::Search => {
                sql.has_search = true;
                // An operand with no keyword (blank) narrows nothing, as before the index.
                if let Some(query) = fts_query(&operand_str(term)?) {
                    if term.negated {
                        let p = sql.param(SqlValue::text(&query));
                        sql.push(format!("m.id IN (SELECT rowid FROM messages_fts WHERE messages_fts MATCH {p})"), true);
                    } else {
                        sql.add_search(query);
                    }
                }
            }
            Operator::Id => {
                let id = parse_int(&operand_str(term)?).ok_or_else(|| ApiError::bad_request("Invalid narrow operand for id"))?;
                let p = sql.param(SqlValue::Number(id as f64));
                sql.push(format!("m.id = {p}"), term.negated);
            }
            Operator::Near => {}
            Operator::Has => {
                let cond = match HasOperand::parse(&operand_str(term)?)? {
                    HasOperand::Link => "m.has_link = 1",
                    HasOperand::Image => "m.has_image = 1",
                    HasOperand::Attachment => "m.has_attachment = 1",
                    HasOperand::Reaction => "EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)",
                };
                sql.push(cond.to_string(), term.negated);
            }
        }
    }
    Ok(sql)
}

/// A search operand as an FTS5 query over `messages_fts` (content and topic, English
/// stemmed): every keyword must match, and a `"quoted phrase"` matches its words in order.
/// Each keyword and phrase becomes an FTS5 string, so the operand's own punctuation is never
/// FTS5 syntax (`OR`, `*`, `:`, parentheses are plain text). None: no keyword at all.
pub fn fts_query(operand: &str) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    let mut quote = |text: &str| {
        if text.chars().any(char::is_alphanumeric) {
            parts.push(format!("\"{}\"", text.replace('"', "\"\"")));
        }
    };
    for (i, chunk) in operand.split('"').enumerate() {
        // Odd chunks lie between quotes (an unpaired quote leaves its tail a phrase too).
        if i % 2 == 1 {
            quote(chunk.trim());
        } else {
            chunk.split_whitespace().for_each(&mut quote);
        }
    }
    (!parts.is_empty()).then(|| parts.join(" "))
}

/// `channel:` by id or name.
fn channel_condition(sql: &mut NarrowSql, term: &Term, realm: f64) -> ApiResult<String> {
    Ok(match &term.operand {
        Value::Number(n) => {
            let p = sql.param(SqlValue::Number(n.as_f64().unwrap_or(-1.0)));
            format!("m.channel_id = {p}")
        }
        Value::String(name) => {
            let r = sql.param(SqlValue::Number(realm));
            let n = sql.param(SqlValue::text(name));
            format!("m.channel_id = (SELECT id FROM channels WHERE realm_id = {r} AND name = {n} COLLATE NOCASE)")
        }
        _ => return Err(ApiError::bad_request("Invalid narrow operand for channel")),
    })
}

/// `sender:` by id, `me` or email.
fn sender_condition(sql: &mut NarrowSql, term: &Term, realm: f64, user_id: UserId) -> ApiResult<String> {
    Ok(match &term.operand {
        Value::Number(n) => {
            let p = sql.param(SqlValue::Number(n.as_f64().unwrap_or(-1.0)));
            format!("m.sender_id = {p}")
        }
        Value::String(s) if s == "me" => {
            let p = sql.param(SqlValue::Number(user_id.0 as f64));
            format!("m.sender_id = {p}")
        }
        Value::String(email) => {
            let r = sql.param(SqlValue::Number(realm));
            let e = sql.param(SqlValue::text(email));
            format!(
                    "m.sender_id IN (SELECT id FROM users WHERE realm_id = {r} AND (email = {e} COLLATE NOCASE OR delivery_email = {e} COLLATE NOCASE))"
                )
        }
        _ => return Err(ApiError::bad_request("Invalid narrow operand for sender")),
    })
}

/// `is:` as the caller's flags and topic policies say.
fn is_condition(sql: &mut NarrowSql, term: &Term, user_id: UserId) -> ApiResult<String> {
    Ok(match IsOperand::parse(&operand_str(term)?)? {
        IsOperand::Starred => format!("(um.flags & {STARRED}) != 0"),
        IsOperand::Mentioned => format!("(um.flags & {ANY_MENTION}) != 0"),
        IsOperand::Unread => format!("(um.user_id IS NOT NULL AND (um.flags & {READ}) = 0)"),
        IsOperand::Dm => "m.channel_id IS NULL".to_string(),
        IsOperand::Alerted => format!("(um.flags & {HAS_ALERT_WORD}) != 0"),
        IsOperand::Resolved => "(m.channel_id IS NOT NULL AND m.topic LIKE '✔ %')".to_string(),
        IsOperand::Followed => format!(
            "EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = {} AND ut.channel_id = m.channel_id \
                 AND ut.topic = m.topic COLLATE NOCASE AND ut.visibility_policy = {})",
            sql.param(SqlValue::Number(user_id.0 as f64)),
            VisibilityPolicy::Followed.code()
        ),
    })
}

/// The conversation between the caller and the users of the operand (ids, or emails as a
/// list or comma-separated): the personal recipients for two people (or oneself), the
/// group's recipient otherwise.
fn dm_condition(sql: &mut NarrowSql, term: &Term, realm: f64, user_id: UserId) -> ApiResult<String> {
    let mut ids: Vec<i64> = Vec::new();
    let mut emails: Vec<String> = Vec::new();
    match &term.operand {
        Value::Number(n) => ids.push(n.as_i64().unwrap_or(-1)),
        Value::Array(list) => {
            for v in list {
                match v {
                    Value::Number(n) => ids.push(n.as_i64().unwrap_or(-1)),
                    Value::String(s) => emails.push(s.trim().to_lowercase()),
                    _ => return Err(ApiError::bad_request("Invalid narrow operand for dm")),
                }
            }
        }
        Value::String(s) => {
            for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                match parse_int(part) {
                    Some(id) => ids.push(id),
                    None => emails.push(part.to_lowercase()),
                }
            }
        }
        _ => return Err(ApiError::bad_request("Invalid narrow operand for dm")),
    }
    let r = sql.param(SqlValue::Number(realm));
    let me = sql.param(SqlValue::Number(user_id.0 as f64));
    let ids_p = sql.param(SqlValue::text(&serde_json::to_string(&ids).unwrap_or_default()));
    let emails_p = sql.param(SqlValue::text(&serde_json::to_string(&emails).unwrap_or_default()));
    // The other participants (the caller removed), as a JSON-free set in SQL.
    let others = format!(
        "(SELECT id FROM users WHERE realm_id = {r} AND id != {me} AND (id IN (SELECT value FROM json_each({ids_p})) \
         OR lower(email) IN (SELECT value FROM json_each({emails_p})) OR lower(delivery_email) IN (SELECT value FROM json_each({emails_p}))))"
    );
    let count = format!("(SELECT COUNT(*) FROM {others})");
    Ok(format!(
        "m.channel_id IS NULL AND ( \
         ({count} = 0 AND m.sender_id = {me} AND m.recipient_id = (SELECT id FROM recipients WHERE realm_id = {r} AND type = {personal} AND type_id = {me})) \
         OR ({count} = 1 AND ( \
             (m.sender_id = {me} AND m.recipient_id = (SELECT rc.id FROM recipients rc WHERE rc.realm_id = {r} AND rc.type = {personal} AND rc.type_id IN {others})) \
             OR (m.sender_id IN {others} AND m.recipient_id = (SELECT id FROM recipients WHERE realm_id = {r} AND type = {personal} AND type_id = {me})))) \
         OR ({count} > 1 AND m.recipient_id = (SELECT rc.id FROM recipients rc JOIN direct_message_groups g ON g.id = rc.type_id AND rc.type = {group} \
             WHERE g.realm_id = {r} AND g.group_size = {count} + 1 \
             AND NOT EXISTS (SELECT 1 FROM direct_message_group_members gm WHERE gm.group_id = g.id AND gm.user_id != {me} AND gm.user_id NOT IN {others}) \
             AND EXISTS (SELECT 1 FROM direct_message_group_members gm WHERE gm.group_id = g.id AND gm.user_id = {me}))))",
        personal = RecipientType::Personal.code(),
        group = RecipientType::DirectMessageGroup.code()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::narrow::parse_narrow;
    use serde_json::json;

    fn sql_of(narrow: Value) -> ApiResult<NarrowSql> {
        narrow_sql(&parse_narrow(&narrow).unwrap(), RealmId(7), UserId(11), "general chat", 3)
    }

    #[test]
    fn unknown_operator_is_rejected() {
        assert!(sql_of(json!([["bogus", "x"]])).is_err());
    }

    #[test]
    fn parameters_are_numbered_from_the_first_free_one() {
        let sql = sql_of(json!([["topic", "lunch"]])).unwrap();
        assert_eq!(sql.conditions, vec!["(m.channel_id IS NOT NULL AND m.topic = ?3 COLLATE NOCASE)".to_string()]);
        assert_eq!(sql.params.len(), 1);
    }

    #[test]
    fn a_negated_term_is_wrapped_in_not() {
        let sql = sql_of(json!([{"operator": "topic", "operand": "lunch", "negated": true}])).unwrap();
        assert_eq!(sql.conditions, vec!["NOT ((m.channel_id IS NOT NULL AND m.topic = ?3 COLLATE NOCASE))".to_string()]);
    }

    #[test]
    fn a_channel_term_by_name_resolves_in_a_subquery() {
        let sql = sql_of(json!([["channel", "Verona"]])).unwrap();
        assert!(sql.has_channel);
        assert_eq!(sql.conditions.len(), 1);
        assert!(
            sql.conditions[0].contains("SELECT id FROM channels WHERE realm_id = ?3 AND name = ?4 COLLATE NOCASE"),
            "{:?}",
            sql.conditions
        );
    }

    #[test]
    fn search_binds_one_fts_query_of_quoted_keywords() {
        let sql = sql_of(json!([["search", "50%_off NEAR(x) OR \"lunch plans\""], ["topic", "t"], ["search", "more"]])).unwrap();
        assert!(sql.has_search);
        assert_eq!(sql.search_param.as_deref(), Some("?3"));
        let query = "\"50%_off\" \"NEAR(x)\" \"OR\" \"lunch plans\" \"more\"";
        assert_eq!(sql.params, vec![SqlValue::text(query), SqlValue::text("t")]);
        assert_eq!(sql.search_query.as_deref(), Some(query));
        assert_eq!(sql.conditions.len(), 1, "only the topic is a condition: {:?}", sql.conditions);
    }

    #[test]
    fn a_negated_search_is_not_highlighted() {
        let sql = sql_of(json!([{"operator": "search", "operand": "lunch", "negated": true}])).unwrap();
        assert_eq!(sql.conditions.len(), 1);
        assert!(sql.conditions[0].starts_with("NOT (m.id IN"), "{:?}", sql.conditions);
        assert_eq!(sql.search_query, None);
        assert_eq!(sql.search_param, None);
    }

    #[test]
    fn fts_query_keeps_phrases_and_drops_bare_punctuation() {
        assert_eq!(fts_query("  "), None);
        assert_eq!(fts_query("? !!"), None);
        assert_eq!(fts_query("say \"hi there\" now"), Some("\"say\" \"hi there\" \"now\"".to_string()));
        assert_eq!(fts_query("tail \"open phrase"), Some("\"tail\" \"open phrase\"".to_string()));
        assert_eq!(fts_query("\"\""), None);
    }
}
