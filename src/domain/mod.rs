//! Access checks (`access_*`: fetch and check, one error for missing and invisible) and the
//! builders of API objects from rows.

pub mod profile_fields;
pub mod user_groups;
pub mod users;
