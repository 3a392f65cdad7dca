//! `EventQueueShard`: holds many event queues of one organization (named by realm id and
//! shard number), stores their events and answers long-polls.

use worker::{durable_object, DurableObject, Env, Request, Response, Result, State};

#[durable_object]
pub struct EventQueueShard {
    state: State,
    env: Env,
}

impl DurableObject for EventQueueShard {
    fn new(state: State, env: Env) -> Self {
        EventQueueShard { state, env }
    }

    async fn fetch(&self, _req: Request) -> Result<Response> {
        let _ = (&self.state, &self.env);
        Response::error("no such command", 404)
    }
}
