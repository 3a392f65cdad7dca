//! Zulip's organization roles.

int_code_enum! {
    /// Zulip's organization roles; a smaller code is more privileged.
    #[derive(Default)]
    pub enum Role {
        Owner = 100,
        Administrator = 200,
        Moderator = 300,
        #[default]
        Member = 400,
        Guest = 600,
    }
}

impl Role {
    /// Whether this role has at least the privileges of `other` (owners are administrators,
    /// administrators moderators, and so on).
    pub fn is_at_least(self, other: Role) -> bool {
        self.code() <= other.code()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn roles_map_to_zulips_codes() {
        let codes: Vec<i64> = Role::ALL.iter().map(|r| r.code()).collect();
        assert_eq!(codes, vec![100, 200, 300, 400, 600]);
        assert_eq!(Role::from_code(200), Some(Role::Administrator));
        assert_eq!(Role::from_code(500), None);
        assert_eq!(serde_json::to_value(Role::Guest).unwrap(), json!(600));
        assert_eq!(serde_json::from_value::<Role>(json!(300)).unwrap(), Role::Moderator);
        assert!(serde_json::from_value::<Role>(json!(250)).is_err());
    }

    #[test]
    fn a_role_includes_the_less_privileged_ones() {
        assert!(Role::Owner.is_at_least(Role::Administrator));
        assert!(Role::Moderator.is_at_least(Role::Moderator));
        assert!(!Role::Member.is_at_least(Role::Moderator));
        assert!(!Role::Guest.is_at_least(Role::Member));
    }
}
