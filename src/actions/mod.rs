//! State changes: the D1 writes of each operation (batched) and, once they are committed,
//! the events they cause. `do_*` takes trusted input; `check_*` validates, then acts.

pub mod channels;
pub mod message_delete;
pub mod message_edit;
pub mod message_flags;
pub mod message_notifications;
pub mod message_send;
pub mod reactions;
pub mod subscription_properties;
pub mod typing;
pub mod users;
