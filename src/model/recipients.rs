//! Recipient types: what a message's `recipients` row points at.

int_code_enum! {
    /// `recipients.type`; `recipients.type_id` is the id of the user, channel or group.
    pub enum RecipientType {
        /// A user: the two-person (or self) conversation with that user.
        Personal = 1,
        Channel = 2,
        /// A direct-message group of three or more users.
        DirectMessageGroup = 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recipient_types_map_to_zulips_codes() {
        let codes: Vec<i64> = RecipientType::ALL.iter().map(|t| t.code()).collect();
        assert_eq!(codes, vec![1, 2, 3]);
        assert_eq!(RecipientType::from_code(3), Some(RecipientType::DirectMessageGroup));
        assert_eq!(RecipientType::from_code(4), None);
        assert_eq!(serde_json::from_value::<RecipientType>(serde_json::json!(2)).unwrap(), RecipientType::Channel);
        assert_eq!(serde_json::to_value(RecipientType::Personal).unwrap(), 1);
    }
}
