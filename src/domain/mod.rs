//! Access checks (`access_*`: fetch and check, one error for missing and invisible) and the
//! builders of API objects from rows.

pub mod messages;
pub mod realm_settings;
pub mod register_state;
pub mod subscription_properties;
pub mod subscription_state;
pub mod users;
