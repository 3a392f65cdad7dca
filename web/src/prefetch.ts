// The boot module's work: before the app's code has even loaded, ask the server for the
// two things the first page needs — /register and the first window of the narrow in the
// URL — so that the network and the script load overlap. The app takes the answers once.

import { ApiError, get, post } from "./api";
import { REGISTER_PARAMS } from "./registerParams";
import { hashToNarrow } from "./hash";
import { messagesParams } from "./messagesParams";
import type { Narrow } from "./types";

const noNames = {
  channelName: () => undefined,
  channelIdByName: () => undefined,
  userName: () => undefined,
  userIdByEmail: () => undefined,
};

let register: Promise<Record<string, unknown>> | undefined;
let messages: { narrow: Narrow; answer: Promise<unknown> } | undefined;

export function prefetch(): void {
  register = post("register", REGISTER_PARAMS);
  register.catch(() => {});
  const narrow = hashToNarrow(location.hash, noNames);
  // Only narrows named by ids (what the client's own links hold) can be asked for yet.
  if (narrow && narrow.length && narrow.every((t) => typeof t.operand !== "string" || !["channel", "dm", "sender"].includes(t.operator))) {
    const answer = get("messages", messagesParams(narrow, "first_unread", 25, 25));
    answer.catch(() => {});
    messages = { narrow, answer };
  }
}

/** The prefetched /register answer, once. */
export function takeRegister(): Promise<Record<string, unknown>> | undefined {
  const r = register;
  register = undefined;
  return r;
}

/** The prefetched first window, once, if it is of this narrow and anchor. */
export function takeMessages(narrow: Narrow, anchor: string | number): Promise<unknown> | undefined {
  const m = messages;
  messages = undefined;
  if (!m || anchor !== "first_unread" || JSON.stringify(m.narrow) !== JSON.stringify(narrow)) return undefined;
  return m.answer;
}

export { ApiError };
