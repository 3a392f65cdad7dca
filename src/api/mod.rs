//! Handlers: each authenticates, parses its parameters, calls one action and answers.
//! Routes are declared in `routes.rs`.

pub mod dev;
pub mod events;
pub mod login;
pub mod server;
pub mod subscription_properties;
pub mod typing;
pub mod users;
