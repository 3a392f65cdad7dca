import type { Message } from "../../src/types";

let next = 100;
export const SELF = 1;
export const users = {
  1: { id: 1, email: "me@x.com", full_name: "Me" },
  2: { id: 2, email: "hamlet@x.com", full_name: "Hamlet" },
  3: { id: 3, email: "othello@x.com", full_name: "Othello" },
};

export function streamMsg(streamId: number, topic: string, extra: Partial<Message> = {}): Message {
  return {
    id: ++next,
    type: "stream",
    sender_id: 2,
    sender_email: "hamlet@x.com",
    sender_full_name: "Hamlet",
    avatar_url: null,
    content: "<p>hello</p>",
    display_recipient: "Verona",
    stream_id: streamId,
    subject: topic,
    timestamp: 1700000000,
    flags: [],
    reactions: [],
    ...extra,
  };
}

export function dmMsg(ids: number[], extra: Partial<Message> = {}): Message {
  return {
    id: ++next,
    type: "private",
    sender_id: 2,
    sender_email: "hamlet@x.com",
    sender_full_name: "Hamlet",
    avatar_url: null,
    content: "<p>psst</p>",
    display_recipient: ids.map((id) => users[id as 1 | 2 | 3]),
    subject: "",
    timestamp: 1700000000,
    flags: [],
    reactions: [],
    ...extra,
  };
}
