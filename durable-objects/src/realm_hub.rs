//! `RealmHub`: one per organization (named by realm id). Every event of the organization
//! passes through it, which fixes one order of events for all of its queues.

use worker::{durable_object, DurableObject, Env, Request, Response, Result, State};

#[durable_object]
pub struct RealmHub {
    state: State,
    env: Env,
}

impl DurableObject for RealmHub {
    fn new(state: State, env: Env) -> Self {
        RealmHub { state, env }
    }

    async fn fetch(&self, _req: Request) -> Result<Response> {
        let _ = (&self.state, &self.env);
        Response::error("no such command", 404)
    }
}
