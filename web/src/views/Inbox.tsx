import { names, state, isTopicMuted } from "../store";
import { narrowToHash } from "../hash";
import { dmTitle } from "../format";
import { channelHash, sidebarChannels, topicHash } from "./Sidebar";
import { markNarrowRead } from "../actions";

/** Conversations with unread messages: direct messages first, then channels and topics. */
export function Inbox() {
  const u = state.unreads;
  const dms = [...u.dmKeys().entries()];
  const channels = sidebarChannels()
    .map((s) => ({ s, topics: [...u.topicsOf(s.stream_id).entries()].filter(([t]) => !isTopicMuted(s.stream_id, t)) }))
    .filter((c) => c.topics.length > 0);
  const empty = dms.length === 0 && channels.length === 0;
  return (
    <section class="inbox" aria-labelledby="inbox-title">
      <h2 id="inbox-title" class="view-title">
        Inbox
      </h2>
      {empty && (
        <div class="inbox-empty">
          <p>You have no unread messages.</p>
          <p>
            <a href="#feed">View all messages</a>
          </p>
        </div>
      )}
      {dms.length > 0 && (
        <div class="inbox-group">
          <h3 class="inbox-heading">Direct messages</h3>
          <ul>
            {dms.map(([key, n]) => {
              const ids = key.split(",").map(Number);
              return (
                <li key={key} class="inbox-row">
                  <a href={narrowToHash([{ operator: "dm", operand: ids }], names)}>{dmTitle(ids)}</a>
                  <span class="unread-count">
                    {n}
                    <span class="visually-hidden"> unread</span>
                  </span>
                </li>
              );
            })}
          </ul>
        </div>
      )}
      {channels.map(({ s, topics }) => (
        <div class="inbox-group" key={s.stream_id}>
          <h3 class="inbox-heading" style={{ borderLeftColor: s.color ?? "#76ce90" }}>
            <a href={channelHash(s.stream_id)}>{s.name}</a>
            <button type="button" class="link-button" onClick={() => void markNarrowRead([{ operator: "channel", operand: s.stream_id }])}>
              Mark {s.name} as read
            </button>
          </h3>
          <ul>
            {topics.map(([topic, n]) => (
              <li key={topic} class="inbox-row">
                <a href={topicHash(s.stream_id, topic)}>{topic === "" ? state.realm.emptyTopicName : topic}</a>
                <span class="unread-count">
                  {n}
                  <span class="visually-hidden"> unread</span>
                </span>
              </li>
            ))}
          </ul>
        </div>
      ))}
    </section>
  );
}
