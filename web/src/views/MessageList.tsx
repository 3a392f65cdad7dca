import { memo } from "./memo";
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Message, Reaction } from "../types";
import { canDelete, canEdit, canMove, canResolve, changed, muteRules, names, state, isTopicMuted, setNotice } from "../store";
import { Avatar } from "./Avatar";
import { Content } from "./Content";
import { EmojiPicker } from "./EmojiPicker";
import { MenuButton, type MenuItem } from "./Menu";
import { codeToChar } from "../emoji";
import { dmTitle, formatDay, formatFull, formatTime } from "../format";
import { channelHash, topicHash } from "./Sidebar";
import { messageLink, narrowToHash } from "../hash";
import { dmPartners, isResolved, RESOLVED_PREFIX, isSearchNarrow } from "../narrow";
import {
  deleteMessage,
  editMessage,
  loadNewer,
  loadOlder,
  markRead,
  moveTopic,
  rawContent,
  setTopicVisibility,
  toggleReaction,
  toggleStar,
} from "../actions";
import { VISIBILITY } from "../types";
import { composeApi } from "./Compose";
import { IconHash, IconLock, IconMail, IconSmile, IconStar } from "./Icons";

function sameConversation(a: Message, b: Message): boolean {
  if (a.type !== b.type) return false;
  if (a.type === "stream") return a.stream_id === b.stream_id && a.subject.toLowerCase() === b.subject.toLowerCase();
  return dmPartners(a, state.self.user_id).join() === dmPartners(b, state.self.user_id).join();
}

function topicName(t: string): string {
  return t === "" ? state.realm.emptyTopicName : t;
}

function RecipientHeader({ msg }: { msg: Message }) {
  if (msg.type === "stream" && msg.stream_id !== undefined) {
    const sub = state.subs.get(msg.stream_id);
    const channel = names.channelName(msg.stream_id) ?? String(msg.display_recipient);
    const muted = isTopicMuted(msg.stream_id, msg.subject);
    return (
      <div class="recipient-header" style={{ "--channel-color": sub?.color ?? "#c2c2c2" }}>
        <a class="rh-channel" href={channelHash(msg.stream_id)}>
          <span class="rh-icon">{sub?.invite_only ? <IconLock /> : <IconHash />}</span>
          {channel}
        </a>
        <span class="rh-sep" aria-hidden="true">
          ›
        </span>
        <a class={`rh-topic${msg.subject === "" ? " empty-topic" : ""}`} href={topicHash(msg.stream_id, msg.subject)}>
          {topicName(msg.subject)}
        </a>
        {muted && <span class="rh-muted">muted</span>}
        <span class="rh-date">{formatDay(msg.timestamp)}</span>
        <MenuButton
          class="rh-menu"
          label={`Options for topic ${topicName(msg.subject)}`}
          items={[
            muted
              ? { label: "Unmute topic", onSelect: () => void setTopicVisibility(msg.stream_id!, msg.subject, sub?.is_muted ? VISIBILITY.UNMUTED : VISIBILITY.INHERIT) }
              : { label: "Mute topic", onSelect: () => void setTopicVisibility(msg.stream_id!, msg.subject, VISIBILITY.MUTED) },
            ...(!canResolve() || msg.subject === ""
              ? []
              : [
                  isResolved(msg.subject)
                    ? { label: "Mark as unresolved", onSelect: () => void moveTopic(msg, msg.subject.slice(RESOLVED_PREFIX.length), undefined, "change_all") }
                    : { label: "Mark as resolved", onSelect: () => void moveTopic(msg, RESOLVED_PREFIX + msg.subject, undefined, "change_all") },
                ]),
          ]}
        />
      </div>
    );
  }
  const ids = dmPartners(msg, state.self.user_id);
  const title = ids.length === 1 && ids[0] === state.self.user_id ? "You (note to self)" : `You and ${dmTitle(ids)}`;
  return (
    <div class="recipient-header dm">
      <a class="rh-dm" href={narrowToHash([{ operator: "dm", operand: ids }], names)}>
        <span class="rh-icon"><IconMail /></span>
        {title}
      </a>
      <span class="rh-date">{formatDay(msg.timestamp)}</span>
    </div>
  );
}

function emojiLabel(r: Reaction): string {
  return r.emoji_name.replace(/_/g, " ");
}

function Reactions({ msg }: { msg: Message }) {
  if (msg.reactions.length === 0) return null;
  const groups = new Map<string, Reaction[]>();
  for (const r of msg.reactions) {
    const k = `${r.reaction_type}:${r.emoji_code}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  return (
    <div class="reactions" aria-label="Reactions" role="group">
      {[...groups.values()].map((list) => {
        const r = list[0]!;
        const mine = list.some((x) => x.user_id === state.self.user_id);
        const who = list.map((x) => (x.user_id === state.self.user_id ? "you" : state.users.get(x.user_id)?.full_name ?? "someone")).join(", ");
        const custom = r.reaction_type === "realm_emoji" ? state.realmEmoji.get(r.emoji_code) : undefined;
        return (
          <button
            type="button"
            key={`${r.reaction_type}:${r.emoji_code}`}
            class={`reaction${mine ? " mine" : ""}`}
            aria-pressed={mine}
            aria-label={`${emojiLabel(r)}: ${list.length}`}
            title={`${who} reacted with :${r.emoji_name}:`}
            onClick={() => void toggleReaction(msg, { name: r.emoji_name, code: r.emoji_code, type: r.reaction_type })}
          >
            {custom ? <img class="emoji" src={custom.source_url} alt="" /> : <span class="reaction-emoji">{r.reaction_type === "unicode_emoji" ? codeToChar(r.emoji_code) : `:${r.emoji_name}:`}</span>}
            <span class="reaction-count">{list.length}</span>
          </button>
        );
      })}
    </div>
  );
}

function MoveDialog({ msg, onClose }: { msg: Message; onClose: () => void }) {
  const [topic, setTopic] = useState(msg.subject);
  const [channel, setChannel] = useState(String(msg.stream_id));
  const [mode, setMode] = useState<"change_one" | "change_later" | "change_all">("change_all");
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => ref.current?.select(), []);
  async function submit(e: Event) {
    e.preventDefault();
    if (await moveTopic(msg, topic, Number(channel), mode)) onClose();
  }
  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <form class="modal" role="dialog" aria-modal="true" aria-label="Move messages" onSubmit={submit} onKeyDown={(e) => e.key === "Escape" && (e.stopPropagation(), onClose())}>
        <h2>Move messages</h2>
        <label>
          Channel
          <select value={channel} onChange={(e) => setChannel(e.currentTarget.value)}>
            {[...state.subs.values()].map((s) => (
              <option value={String(s.stream_id)} key={s.stream_id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          New topic
          <input ref={ref} value={topic} maxLength={state.realm.maxTopicLength} onInput={(e) => setTopic(e.currentTarget.value)} />
        </label>
        <label>
          Which messages
          <select value={mode} onChange={(e) => setMode(e.currentTarget.value as typeof mode)}>
            <option value="change_one">Only this message</option>
            <option value="change_later">This and all following messages</option>
            <option value="change_all">All messages in this topic</option>
          </select>
        </label>
        <div class="modal-buttons">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="button primary">
            Move
          </button>
        </div>
      </form>
    </div>
  );
}

function DeleteDialog({ msg, onClose }: { msg: Message; onClose: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <div class="modal-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="modal" role="alertdialog" aria-modal="true" aria-labelledby={`delete-title-${msg.id}`} onKeyDown={(e) => e.key === "Escape" && (e.stopPropagation(), onClose())}>
        <h2 id={`delete-title-${msg.id}`}>Delete message?</h2>
        <p>Deleting a message removes it for everyone. This cannot be undone.</p>
        <div class="modal-buttons">
          <button type="button" class="button" onClick={onClose}>
            Cancel
          </button>
          <button
            type="button"
            class="button danger"
            ref={ref}
            onClick={async () => {
              if (await deleteMessage(msg.id)) onClose();
            }}
          >
            Delete
          </button>
        </div>
      </div>
    </div>
  );
}

function EditBox({ msg, onDone }: { msg: Message; onDone: () => void }) {
  const [text, setText] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const ref = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    rawContent(msg.id)
      .then((t) => {
        setText(t);
        requestAnimationFrame(() => ref.current?.focus());
      })
      .catch((e) => {
        setNotice((e as Error).message);
        onDone();
      });
  }, [msg.id]);
  async function save(e?: Event) {
    e?.preventDefault();
    if (text === undefined) return;
    setBusy(true);
    if (await editMessage(msg.id, text)) onDone();
    setBusy(false);
  }
  return (
    <form class="edit-box" onSubmit={save}>
      <textarea
        ref={ref}
        aria-label="Edit message"
        value={text ?? ""}
        disabled={text === undefined}
        rows={Math.min(12, Math.max(2, (text ?? "").split("\n").length + 1))}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape") {
            e.stopPropagation();
            onDone();
          } else if (e.key === "Enter" && (e.ctrlKey || e.metaKey || (state.settings.enter_sends && !e.shiftKey))) {
            void save(e);
          }
        }}
      />
      <div class="edit-buttons">
        <button type="submit" class="button primary" disabled={busy || text === undefined}>
          Save
        </button>
        <button type="button" class="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

const MessageRow = memo(function MessageRow({ msg, continued, selected }: { msg: Message; continued: boolean; selected: boolean; v: number }) {
  const [picker, setPicker] = useState(false);
  const [editing, setEditing] = useState(false);
  const [moving, setMoving] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const sender = state.users.get(msg.sender_id);
  const name = sender?.full_name ?? msg.sender_full_name;
  const starred = msg.flags.includes("starred");
  const unread = state.unreads.isUnread(msg.id);
  const items: MenuItem[] = [
    { label: "Quote and reply", onSelect: () => void composeApi.quote(msg) },
    {
      label: "Copy link to message",
      onSelect: () => {
        const link = messageLink(location.origin, msg, names, state.self.user_id);
        navigator.clipboard?.writeText(link).then(
          () => setNotice("Link copied"),
          () => setNotice(link),
        );
      },
    },
  ];
  if (canEdit(msg)) items.push({ label: "Edit message", onSelect: () => setEditing(true) });
  if (canMove(msg)) items.push({ label: "Move messages", onSelect: () => setMoving(true) });
  if (canDelete(msg)) items.push({ label: "Delete message", onSelect: () => setDeleting(true) });
  return (
    <article
      class={`message${continued ? " continued" : ""}${selected ? " selected" : ""}${unread ? " unread" : ""}${msg.local_id ? " sending" : ""}${msg.is_me_message ? " me-message" : ""}`}
      aria-label={`${name}, ${formatTime(msg.timestamp)}`}
      aria-current={selected ? "true" : undefined}
      data-message-id={msg.id}
      onClick={() => {
        if (state.selectedId !== msg.id) {
          state.selectedId = msg.id;
          changed();
        }
      }}
    >
      <div class="message-gutter">{!continued && <Avatar url={sender?.avatar_url ?? msg.avatar_url} name={name} id={msg.sender_id} label={`Avatar of ${name}`} />}</div>
      <div class="message-main">
        {!continued && (
          <div class="message-meta">
            <span class="sender-name">{name}</span>
          </div>
        )}
        <a class="message-time" href={`${narrowToHash(msg.type === "stream" ? [{ operator: "channel", operand: msg.stream_id! }, { operator: "topic", operand: msg.subject }] : [{ operator: "dm", operand: dmPartners(msg, state.self.user_id) }], names)}/near/${msg.id}`} title={formatFull(msg.timestamp)}>
          <time dateTime={new Date(msg.timestamp * 1000).toISOString()}>{formatTime(msg.timestamp)}</time>
        </a>
        {editing ? (
          <EditBox msg={msg} onDone={() => setEditing(false)} />
        ) : msg.local_id ? (
          // A local echo: the Markdown as typed, as text, until the server's rendering arrives.
          <div class="rendered-content local-echo">{msg.content}</div>
        ) : (
          <Content html={msg.content} class={msg.is_me_message ? "me" : ""} />
        )}
        {(msg.last_edit_timestamp || msg.last_moved_timestamp) && (
          <span class="edited-mark" title={formatFull((msg.last_edit_timestamp ?? msg.last_moved_timestamp)!)}>
            {msg.last_edit_timestamp ? "(edited)" : "(moved)"}
          </span>
        )}
        <Reactions msg={msg} />
      </div>
      <div class="message-actions">
        <button type="button" class="icon-button" aria-label="Add reaction" title="Add reaction" onClick={() => setPicker(!picker)}>
          <IconSmile />
        </button>
        <button type="button" class={`icon-button star${starred ? " starred" : ""}`} aria-label={starred ? "Unstar message" : "Star message"} aria-pressed={starred} title={starred ? "Unstar" : "Star"} onClick={() => void toggleStar(msg)}>
          <IconStar filled={starred} />
        </button>
        <MenuButton label="Message actions" items={items} />
      </div>
      {picker && (
        <EmojiPicker
          onClose={() => setPicker(false)}
          onPick={(e) => {
            setPicker(false);
            void toggleReaction(msg, { name: e.name, code: e.code, type: e.type });
          }}
        />
      )}
      {moving && <MoveDialog msg={msg} onClose={() => setMoving(false)} />}
      {deleting && <DeleteDialog msg={msg} onClose={() => setDeleting(false)} />}
    </article>
  );
});

function TypingNotice() {
  const v = state.view;
  if (!v) return null;
  const now = Date.now();
  const who = new Set<number>();
  for (const [key, m] of state.typing) {
    for (const [id, until] of m) {
      if (until < now) continue;
      const relevant = v.narrow.length === 0 || matchesTypingKey(key);
      if (relevant) who.add(id);
    }
  }
  if (who.size === 0) return <div class="typing" aria-live="polite" />;
  const list = [...who].map((id) => state.users.get(id)?.full_name ?? "Someone");
  return (
    <div class="typing" aria-live="polite">
      {list.length > 3 ? "Several people are typing…" : `${list.join(", ")} ${list.length === 1 ? "is" : "are"} typing…`}
    </div>
  );
}

function matchesTypingKey(key: string): boolean {
  const n = state.view!.narrow;
  const channel = n.find((t) => t.operator === "channel");
  const topic = n.find((t) => t.operator === "topic");
  const dm = n.find((t) => t.operator === "dm");
  if (key.startsWith("c:") && channel) {
    const [, sid, ...rest] = key.split(":");
    if (Number(sid) !== Number(channel.operand)) return false;
    return !topic || rest.join(":") === String(topic.operand).toLowerCase();
  }
  if (key.startsWith("d:") && dm) {
    const ids = (Array.isArray(dm.operand) ? dm.operand : String(dm.operand).split(",").map(Number)).slice().sort((a, b) => a - b);
    return key === `d:${ids.join(",")}`;
  }
  return false;
}

/** The message feed of the open narrow: recipient headers, messages, paging by anchor. */
export function MessageList({ v }: { v: number }) {
  const view = state.view!;
  const scroller = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const firstPaintDone = useRef<number | undefined>(undefined);
  const prevFirst = useRef<{ id: number; top: number } | undefined>(undefined);
  const observer = useRef<IntersectionObserver>();
  const lastView = useRef<typeof view | undefined>(undefined);
  // The first paint shows only the messages around the anchor (a screenful); the rest of
  // the window follows in the next frame.
  const [fullView, setFullView] = useState<typeof view | undefined>(undefined);
  const full = fullView === view;
  const searchView = isSearchNarrow(view.narrow);

  // Mark messages read as they come into view (not in search views, as Zulip), once the
  // page is visible; a batch every 300 ms.
  useLayoutEffect(() => {
    const seen = new Set<number>();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const flush = () => {
      timer = undefined;
      if (document.visibilityState !== "visible" || searchView || seen.size === 0) return;
      const ids = [...seen];
      seen.clear();
      void markRead(ids);
    };
    observer.current = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          const id = Number((e.target as HTMLElement).dataset.messageId);
          if (e.isIntersecting && state.unreads.isUnread(id)) seen.add(id);
          else if (!e.isIntersecting) seen.delete(id);
        }
        if (seen.size && !timer) timer = setTimeout(flush, 300);
      },
      { root: scroller.current, threshold: 0.5 },
    );
    const onVisible = () => document.visibilityState === "visible" && flush();
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      observer.current?.disconnect();
      clearTimeout(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [view]);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (lastView.current !== view) {
      lastView.current = view;
      firstPaintDone.current = undefined;
      prevFirst.current = undefined;
    }
    for (const a of el.querySelectorAll("article[data-message-id]")) observer.current?.observe(a);
    if (firstPaintDone.current === undefined && view.loading === "none" && view.messages.length) {
      // First window: scroll to the anchor (the first unread) once, then render the rest
      // of the window after this frame has painted.
      const target = el.querySelector<HTMLElement>(`[data-message-id="${view.anchorId}"]`);
      const last = view.messages[view.messages.length - 1]!.id === view.anchorId;
      if (last || !target) el.scrollTop = el.scrollHeight;
      else el.scrollTop = Math.max(0, target.offsetTop - 80);
      firstPaintDone.current = view.anchorId ?? 0;
      atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      const painted = view;
      requestAnimationFrame(() => setTimeout(() => setFullView(painted), 0));
    } else {
      // Older messages were put above: keep what was on screen where it was.
      if (prevFirst.current) {
        const anchor = el.querySelector<HTMLElement>(`[data-message-id="${prevFirst.current.id}"]`);
        if (anchor && anchor.offsetTop !== prevFirst.current.top) el.scrollTop += anchor.offsetTop - prevFirst.current.top;
      }
      if (atBottom.current && view.foundNewest) el.scrollTop = el.scrollHeight;
    }
    const first = el.querySelector<HTMLElement>("article[data-message-id]");
    prevFirst.current = first ? { id: Number(first.dataset.messageId), top: first.offsetTop } : undefined;
  });

  // Keep the selected message in view when it moves by keyboard.
  useEffect(() => {
    const h = () => {
      const el = scroller.current?.querySelector<HTMLElement>(`[data-message-id="${state.selectedId}"]`);
      el?.scrollIntoView({ block: "nearest" });
    };
    document.addEventListener("selection", h);
    return () => document.removeEventListener("selection", h);
  }, []);

  function onScroll() {
    const el = scroller.current!;
    if (!full) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
    if (el.scrollTop < 300) void loadOlder();
    if (el.scrollHeight - el.scrollTop - el.clientHeight < 300) void loadNewer();
  }

  // When the window is too short to scroll, still page in the rest.
  useEffect(() => {
    const el = scroller.current;
    if (!el || view.loading !== "none" || !full) return;
    if (el.scrollHeight <= el.clientHeight + 10) {
      if (!view.foundOldest) void loadOlder();
      else if (!view.foundNewest) void loadNewer();
    }
  });

  // Messages grouped under recipient headers (one group per conversation and day); the
  // header sticks to the top while its group scrolls.
  const groups: { first: Message; rows: preact.JSX.Element[] }[] = [];
  let prev: Message | undefined;
  // As in Zulip, the combined feed leaves out muted channels and topics; a channel's own
  // view leaves out its muted topics (a muted channel still shows when opened).
  const feed = view.narrow.length === 0;
  const channelView = !feed && view.narrow.every((t) => t.operator === "channel" && !t.negated);
  const hidden = (m: Message) =>
    m.type === "stream" && (feed ? isTopicMuted(m.stream_id!, m.subject) : channelView && muteRules.topicPolicy(m.stream_id!, m.subject) === VISIBILITY.MUTED);
  let list = view.messages;
  if (!full && list.length > 25) {
    const i = Math.max(0, list.findIndex((m) => m.id === view.anchorId));
    const start = Math.max(0, Math.min(i - 5, list.length - 25));
    list = list.slice(start, start + 25);
  }
  for (const m of list) {
    if (hidden(m)) continue;
    const newGroup = !prev || !sameConversation(prev, m) || formatDay(prev.timestamp) !== formatDay(m.timestamp);
    if (newGroup) groups.push({ first: m, rows: [] });
    const continued = !newGroup && prev!.sender_id === m.sender_id && m.timestamp - prev!.timestamp < 600;
    groups[groups.length - 1]!.rows.push(<MessageRow key={m.local_id ?? m.id} msg={m} continued={continued} selected={state.selectedId === m.id} v={v} />);
    prev = m;
  }
  const rows = groups.map((g) => (
    <div class="recipient-group" key={`g${g.first.id}`}>
      <RecipientHeader msg={g.first} />
      {g.rows}
    </div>
  ));

  return (
    <div class="message-scroller" ref={scroller} onScroll={onScroll} tabIndex={-1}>
      {view.loading === "older" && <div class="loading">Loading older messages…</div>}
      {view.foundOldest && list.length > 0 && list[0] === view.messages[0] && <div class="start-of-narrow">{searchView ? "No earlier results" : "Start of this conversation"}</div>}
      {view.loading === "initial" && (
        <div class="loading" role="status">
          Loading messages…
        </div>
      )}
      {view.error && (
        <div class="error" role="alert">
          {view.error}
        </div>
      )}
      {view.loading === "none" && view.messages.length === 0 && !view.error && <div class="empty-narrow">{searchView ? "No messages match this search." : "No messages here yet."}</div>}
      {rows}
      {view.loading === "newer" && <div class="loading">Loading newer messages…</div>}
      <TypingNotice />
    </div>
  );
}
