import { useEffect } from "preact/hooks";
import { names, state, isTopicMuted } from "../store";
import { channelSlug, encodeHashComponent, narrowToHash } from "../hash";
import { isResolved, narrowChannelId, narrowDmIds, narrowIs, narrowTopic } from "../narrow";
import { loadTopics, markAllRead, markNarrowRead, setChannelProperty, setTopicVisibility } from "../actions";
import { VISIBILITY } from "../types";
import { dmTitle } from "../format";
import { MenuButton } from "./Menu";
import { IconAt, IconChat, IconHash, IconInbox, IconLock, IconPin, IconStar } from "./Icons";

function Count({ id, n, label = "unread" }: { id: string; n: number; label?: string }) {
  if (!n) return null;
  return (
    <span class="unread-count" id={id}>
      {n}
      <span class="visually-hidden"> {label}</span>
    </span>
  );
}

export function channelHash(streamId: number): string {
  return `#narrow/channel/${channelSlug(streamId, names.channelName(streamId))}`;
}

export function topicHash(streamId: number, topic: string): string {
  return `${channelHash(streamId)}/topic/${encodeHashComponent(topic)}`;
}

/** Channels in sidebar order: pinned first, then by name; muted ones last among their kind. */
export function sidebarChannels() {
  return [...state.subs.values()].sort((a, b) => {
    if (a.pin_to_top !== b.pin_to_top) return a.pin_to_top ? -1 : 1;
    if (a.is_muted !== b.is_muted) return a.is_muted ? 1 : -1;
    return a.name.localeCompare(b.name);
  });
}

export function Sidebar({ onNavigate }: { onNavigate: () => void }) {
  const route = state.route;
  const narrow = route.kind === "narrow" ? route.narrow : undefined;
  const openChannel = narrow ? narrowChannelId(narrow) : undefined;
  const openTopic = narrow ? narrowTopic(narrow) : undefined;
  const openDm = narrow ? narrowDmIds(narrow)?.join(",") : undefined;
  const u = state.unreads;

  useEffect(() => {
    if (openChannel !== undefined) void loadTopics(openChannel);
  }, [openChannel]);

  const channels = sidebarChannels();
  const topics =
    openChannel !== undefined
      ? [...(state.topics.get(openChannel)?.values() ?? [])].sort((a, b) => b.maxId - a.maxId).slice(0, 30)
      : [];
  if (openChannel !== undefined && openTopic !== undefined && !topics.some((t) => t.name.toLowerCase() === openTopic.toLowerCase())) {
    topics.unshift({ name: openTopic, maxId: 0 });
  }
  const dms = [...state.recentDms.entries()].sort((a, b) => b[1] - a[1]).slice(0, 20);
  const dmCounts = u.dmKeys();
  for (const k of dmCounts.keys()) if (!state.recentDms.has(k)) dms.unshift([k, Infinity]);

  const isView = (v: string) => (v === "inbox" ? route.kind === "inbox" : narrow !== undefined && (v === "feed" ? narrow.length === 0 : narrowIs(narrow, v)));

  return (
    <div class="sidebar-inner" onClick={(e) => (e.target as HTMLElement).closest("a") && onNavigate()}>
      <nav aria-label="Views" class="views">
        <ul>
          <li class={isView("inbox") ? "active" : ""}>
            <a href="#inbox" aria-current={isView("inbox") ? "page" : undefined}>
              <span class="nav-icon"><IconInbox /></span>Inbox
            </a>
            <Count id="unread-inbox" n={u.total()} />
          </li>
          <li class={isView("feed") ? "active" : ""}>
            <a href="#feed" aria-current={isView("feed") ? "page" : undefined}>
              <span class="nav-icon"><IconChat /></span>All messages
            </a>
          </li>
          <li class={isView("mentioned") ? "active" : ""}>
            <a href="#narrow/is/mentioned" aria-current={isView("mentioned") ? "page" : undefined}>
              <span class="nav-icon"><IconAt /></span>Mentions
            </a>
            <Count id="unread-mentions" n={u.mentionCount()} />
          </li>
          <li class={isView("starred") ? "active" : ""}>
            <a href="#narrow/is/starred" aria-current={isView("starred") ? "page" : undefined}>
              <span class="nav-icon"><IconStar /></span>Starred
            </a>
          </li>
        </ul>
        <button type="button" class="link-button mark-all" onClick={() => void markAllRead()}>
          Mark all messages as read
        </button>
      </nav>

      <nav aria-label="Channels" class="channels">
        <h2 class="sidebar-heading">Channels</h2>
        <ul>
          {channels.map((s) => {
            const n = u.channelCount(s.stream_id);
            const active = openChannel === s.stream_id;
            return (
              <li key={s.stream_id} class={`channel-row${s.is_muted ? " muted" : ""}${active && openTopic === undefined ? " active" : ""}`}>
                <div class="row">
                  <span class="channel-swatch" style={{ background: s.color ?? "#76ce90" }} {...(s.invite_only ? { role: "img", "aria-label": "Private channel" } : { "aria-hidden": "true" })}>
                    {s.invite_only ? <IconLock /> : <IconHash />}
                  </span>
                  <a
                    href={channelHash(s.stream_id)}
                    aria-describedby={n ? `unread-channel-${s.stream_id}` : undefined}
                    aria-current={active && openTopic === undefined ? "page" : undefined}
                  >
                    {s.name}
                  </a>
                  {s.pin_to_top && (
                    <span class="pin" title="Pinned">
                      <IconPin />
                    </span>
                  )}
                  <Count id={`unread-channel-${s.stream_id}`} n={n} />
                  <MenuButton
                    class="row-menu"
                    label={`Options for channel ${s.name}`}
                    items={[
                      { label: s.is_muted ? "Unmute channel" : "Mute channel", onSelect: () => void setChannelProperty(s.stream_id, "is_muted", !s.is_muted) },
                      { label: s.pin_to_top ? "Unpin channel" : "Pin channel to top", onSelect: () => void setChannelProperty(s.stream_id, "pin_to_top", !s.pin_to_top) },
                      { label: "Mark channel as read", onSelect: () => void markNarrowRead([{ operator: "channel", operand: s.stream_id }]) },
                    ]}
                  />
                </div>
                {active && (
                  <ul class="topics" aria-label={`Topics in ${s.name}`}>
                    {topics.map((t) => {
                      const tn = u.topicCount(s.stream_id, t.name);
                      const muted = isTopicMuted(s.stream_id, t.name);
                      const policy = state.userTopics.get(`${s.stream_id}:${t.name.toLowerCase()}`) ?? 0;
                      const current = openTopic !== undefined && openTopic.toLowerCase() === t.name.toLowerCase();
                      const display = t.name === "" ? state.realm.emptyTopicName : t.name;
                      const id = `unread-topic-${s.stream_id}-${encodeHashComponent(t.name).replace(/[^A-Za-z0-9_-]/g, "_")}`;
                      return (
                        <li key={t.name} class={`topic-row${muted ? " muted" : ""}${current ? " active" : ""}`}>
                          <div class="row">
                            <a href={topicHash(s.stream_id, t.name)} aria-current={current ? "page" : undefined} aria-describedby={tn ? id : undefined} class={t.name === "" ? "empty-topic" : ""}>
                              {display}
                            </a>
                            {isResolved(t.name) && <span class="visually-hidden"> (resolved)</span>}
                            <Count id={id} n={tn} />
                            <MenuButton
                              class="row-menu"
                              label={`Options for topic ${display}`}
                              items={[
                                muted
                                  ? { label: "Unmute topic", onSelect: () => void setTopicVisibility(s.stream_id, t.name, s.is_muted ? VISIBILITY.UNMUTED : VISIBILITY.INHERIT) }
                                  : { label: "Mute topic", onSelect: () => void setTopicVisibility(s.stream_id, t.name, VISIBILITY.MUTED) },
                                policy === VISIBILITY.FOLLOWED
                                  ? { label: "Unfollow topic", onSelect: () => void setTopicVisibility(s.stream_id, t.name, VISIBILITY.INHERIT) }
                                  : { label: "Follow topic", onSelect: () => void setTopicVisibility(s.stream_id, t.name, VISIBILITY.FOLLOWED) },
                                {
                                  label: "Mark topic as read",
                                  onSelect: () =>
                                    void markNarrowRead([
                                      { operator: "channel", operand: s.stream_id },
                                      { operator: "topic", operand: t.name },
                                    ]),
                                },
                              ]}
                            />
                          </div>
                        </li>
                      );
                    })}
                  </ul>
                )}
              </li>
            );
          })}
        </ul>
      </nav>

      <nav aria-label="Direct messages" class="dms">
        <h2 class="sidebar-heading">Direct messages</h2>
        <ul>
          {dms.map(([key]) => {
            const ids = key.split(",").map(Number);
            const n = dmCounts.get(key) ?? 0;
            const title = dmTitle(ids);
            return (
              <li key={key} class={openDm === key ? "active" : ""}>
                <div class="row">
                  <a href={narrowToHash([{ operator: "dm", operand: ids }], names)} aria-current={openDm === key ? "page" : undefined} aria-describedby={n ? `unread-dm-${key.replace(/,/g, "-")}` : undefined}>
                    {title}
                  </a>
                  <Count id={`unread-dm-${key.replace(/,/g, "-")}`} n={n} />
                </div>
              </li>
            );
          })}
          {dms.length === 0 && <li class="empty">No direct messages yet</li>}
        </ul>
      </nav>
    </div>
  );
}
