//! A user's visibility policy of a topic, and the legacy name of the empty topic.

int_code_enum! {
    /// A user's visibility policy for one topic (`user_topics`; no row means `Inherit`, the
    /// channel's own muting decides).
    #[derive(Default)]
    pub enum VisibilityPolicy {
        #[default]
        Inherit = 0,
        Muted = 1,
        Unmuted = 2,
        Followed = 3,
    }
}

/// Zulip's legacy name of the empty topic.
pub const NO_TOPIC: &str = "(no topic)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn visibility_policies_map_to_zulips_codes() {
        let codes: Vec<i64> = VisibilityPolicy::ALL.iter().map(|p| p.code()).collect();
        assert_eq!(codes, vec![0, 1, 2, 3]);
        assert_eq!(VisibilityPolicy::from_code(3), Some(VisibilityPolicy::Followed));
        assert_eq!(VisibilityPolicy::from_code(4), None);
        assert_eq!(VisibilityPolicy::default(), VisibilityPolicy::Inherit);
        assert_eq!(serde_json::to_value(VisibilityPolicy::Muted).unwrap(), 1);
        assert_eq!(serde_json::from_value::<VisibilityPolicy>(serde_json::json!(2)).unwrap(), VisibilityPolicy::Unmuted);
    }
}
