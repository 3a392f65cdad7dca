import { useEffect, useRef, useState } from "preact/hooks";
import { accountPost, setUnauthorizedHandler } from "../api";
import { EventLoop } from "../events";
import { changed, hooks, names, presenceOf, state, setNotice } from "../store";
import { hashToNarrow } from "../hash";
import { narrowChannelId, narrowDmIds, narrowIs, narrowTopic, narrowsEqual, isSearchNarrow } from "../narrow";
import { catchUpToRegister, loadTopics, navigate, openNarrow, refetchView, sendPresence, setChannelProperty } from "../actions";
import type { Narrow } from "../types";
import { dmTitle } from "../format";
import { useStore } from "./useStore";
import { Sidebar, sidebarChannels } from "./Sidebar";
import { MessageList } from "./MessageList";
import { Compose, composeApi, narrowKeyOf } from "./Compose";
import { Inbox } from "./Inbox";
import { SearchBox } from "./SearchBox";
import { Avatar } from "./Avatar";
import { IconGear, IconLogo, IconMenu } from "./Icons";
import { narrowToSearch } from "../search";

/** Set while signing out: the requests it cuts off answer 401, which must not send the
 * page to the sign-in page with a `next` of its own before the session has ended. */
let signingOut = false;

function goToLogin(): void {
  if (signingOut) return;
  const next = location.pathname + location.hash;
  location.assign(`/login/${next && next !== "/" ? `?next=${encodeURIComponent(next)}` : ""}`);
}

export function narrowTitle(narrow: Narrow): string {
  if (narrow.length === 0) return "All messages";
  if (narrowIs(narrow, "starred")) return "Starred messages";
  if (narrowIs(narrow, "mentioned")) return "Mentions";
  if (narrowIs(narrow, "dm")) return "Direct messages";
  if (isSearchNarrow(narrow)) return `Search: ${narrowToSearch(narrow, names)}`;
  const sid = narrowChannelId(narrow);
  const topic = narrowTopic(narrow);
  if (sid !== undefined) {
    const name = names.channelName(sid) ?? "Unknown channel";
    return topic !== undefined ? `#${name} › ${topic === "" ? state.realm.emptyTopicName : topic}` : `#${name}`;
  }
  const dm = narrowDmIds(narrow);
  if (dm) return dmTitle(dm);
  return narrowToSearch(narrow, names);
}

/** The settings area's hashes (Zulip's): `#settings/<section>`, `#organization/<section>`. */
function settingsSection(h: string): string | undefined {
  const m = /^#((?:settings|organization)(?:\/[a-z-]*)?)$/.exec(h);
  return m ? m[1] : undefined;
}

/** The home view setting: an empty hash opens All messages when the person chose it. */
function homeIsFeed(h: string): boolean {
  return (h === "" || h === "#") && state.settings.web_home_view === "all_messages";
}

function routeFromHash(): void {
  const h = location.hash;
  const section = settingsSection(h);
  if (section !== undefined) {
    state.route = { kind: "settings", section };
    state.view = null;
    changed();
    return;
  }
  if (homeIsFeed(h)) {
    state.route = { kind: "narrow", narrow: [] };
    if (!state.view || state.view.narrow.length) void openNarrow([]);
    changed();
    return;
  }
  if (h === "" || h === "#" || h === "#inbox" || h === "#recent") {
    state.route = { kind: "inbox" };
    state.view = null;
    changed();
    return;
  }
  const narrow = hashToNarrow(h, names);
  if (narrow === undefined) {
    state.route = { kind: "inbox" };
    state.view = null;
    changed();
    return;
  }
  state.route = { kind: "narrow", narrow };
  if (!state.view || !narrowsEqual(state.view.narrow, narrow)) void openNarrow(narrow);
  changed();
}

function isTyping(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  if (!el) return false;
  return el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT" || el.isContentEditable;
}

function moveSelection(delta: number): void {
  const msgs = state.view?.messages ?? [];
  if (msgs.length === 0) return;
  const i = msgs.findIndex((m) => m.id === state.selectedId);
  const next = msgs[Math.max(0, Math.min(msgs.length - 1, i === -1 ? msgs.length - 1 : i + delta))]!;
  state.selectedId = next.id;
  changed();
  document.dispatchEvent(new CustomEvent("selection"));
}

function nextUnreadTopic(): void {
  const route = state.route;
  const cur =
    route.kind === "narrow" && narrowChannelId(route.narrow) !== undefined && narrowTopic(route.narrow) !== undefined
      ? { streamId: narrowChannelId(route.narrow)!, topic: narrowTopic(route.narrow)! }
      : undefined;
  const next = state.unreads.nextUnreadTopic(
    sidebarChannels().map((s) => s.stream_id),
    cur,
  );
  if (next) {
    navigate([
      { operator: "channel", operand: next.streamId },
      { operator: "topic", operand: next.topic },
    ]);
  } else setNotice("No more unread topics");
}

const loop = new EventLoop({
  onReregistered: () => void refetchView(),
  onUnauthorized: goToLogin,
});

type SettingsModule = typeof import("./settings/Settings");
let settingsChunk: Promise<SettingsModule> | undefined;

/** The settings screens: a chunk of their own, loaded the first time they are opened. */
function SettingsScreen({ section }: { section: string }) {
  const [mod, setMod] = useState<SettingsModule | undefined>();
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    settingsChunk ??= import("./settings/Settings");
    settingsChunk.then(setMod, (e: Error) => {
      settingsChunk = undefined;
      setError(e.message);
    });
  }, []);
  if (error) return <p role="alert" class="error">Could not load the settings: {error}</p>;
  if (!mod) return <div class="loading" role="status">Loading settings…</div>;
  return <mod.Settings section={section} />;
}

export function App() {
  const v = useStore();
  const [failed, setFailed] = useState<string | undefined>();
  const [sidebarOpen, setSidebarOpen] = useState(false);
  const started = useRef(false);
  // The people list waits for the frame after the first messages are painted (it is not
  // needed for them).
  const [showPeople, setShowPeople] = useState(false);
  useEffect(() => {
    if (state.ready && state.view?.loading !== "initial" && !showPeople) requestAnimationFrame(() => setTimeout(() => setShowPeople(true), 0));
  });

  useEffect(() => {
    if (started.current) return;
    started.current = true;
    setUnauthorizedHandler(goToLogin);
    hooks.refetchView = () => void refetchView();
    hooks.reloadTopics = (id) => void loadTopics(id);
    // The open narrow's first window is fetched while /register runs: a narrow named by
    // ids in the URL needs no state to be asked for.
    const early = hashToNarrow(location.hash, names);
    const earlyFetch = early && early.length ? openNarrow(early) : undefined;
    if (early && earlyFetch) state.route = { kind: "narrow", narrow: early };
    loop
      .register(earlyFetch)
      .then(async () => {
        loop.start();
        routeFromHash();
        if (earlyFetch) await earlyFetch.then(catchUpToRegister);
        setTimeout(() => void sendPresence(), 1000);
      })
      .catch((e) => {
        if (e?.status === 401) goToLogin();
        else setFailed(e?.message ?? String(e));
      });
    window.addEventListener("hashchange", routeFromHash);
    const presence = setInterval(() => void sendPresence(), 60000);
    // Typing indicators expire on the client.
    const tick = setInterval(() => {
      if ([...state.typing.values()].some((m) => m.size)) {
        const now = Date.now();
        for (const m of state.typing.values()) for (const [id, until] of m) if (until < now) m.delete(id);
        changed();
      }
    }, 2000);
    return () => {
      clearInterval(presence);
      clearInterval(tick);
    };
  }, []);

  // Keyboard shortcuts.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === "Escape") {
        if (isTyping(e.target)) (e.target as HTMLElement).blur();
        setSidebarOpen(false);
        if (state.notice) setNotice(undefined);
        return;
      }
      if (isTyping(e.target) || (e.target as HTMLElement)?.closest?.('[role="menu"],[role="dialog"],[role="alertdialog"]')) return;
      // The message shortcuts mean nothing on the settings screens.
      if (state.route.kind === "settings") return;
      const msg = state.view?.messages.find((m) => m.id === state.selectedId);
      switch (e.key) {
        case "c":
          e.preventDefault();
          composeApi.focus();
          break;
        case "r":
        case "Enter":
          if (msg && (e.key === "r" || !(e.target as HTMLElement)?.closest?.("a, button, summary, [role=button]"))) {
            e.preventDefault();
            composeApi.reply(msg);
          }
          break;
        case "ArrowDown":
        case "j":
          e.preventDefault();
          moveSelection(1);
          break;
        case "ArrowUp":
        case "k":
          e.preventDefault();
          moveSelection(-1);
          break;
        case "n":
          e.preventDefault();
          nextUnreadTopic();
          break;
        case "/":
          e.preventDefault();
          document.dispatchEvent(new CustomEvent("focus-search"));
          break;
      }
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  // The unread count in the title, as Zulip's desktop app reads it.
  const total = state.ready ? state.unreads.total() : 0;
  const route = state.route;
  const where = route.kind === "inbox" ? "Inbox" : route.kind === "settings" ? "Settings" : narrowTitle(route.narrow);
  useEffect(() => {
    document.title = `${total ? `(${total}) ` : ""}${where}${state.realm.name ? ` - ${state.realm.name}` : ""}`;
  });

  async function logout() {
    if (signingOut) return;
    signingOut = true;
    await loop.close();
    // The page leaves only once the server has ended the session (or it had ended
    // already): a transient failure is retried, a lasting one is said.
    for (let attempt = 1; ; attempt++) {
      try {
        await accountPost("/accounts/logout/", {});
        break;
      } catch (e) {
        const status = (e as { status?: number }).status ?? 0;
        if (status === 401) break;
        if (attempt === 3 || (status >= 400 && status < 500)) {
          signingOut = false;
          setNotice(`Could not log out: ${(e as Error).message}`);
          loop.resume();
          return;
        }
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
    location.assign("/login/");
  }

  if (failed) {
    return (
      <main class="fatal">
        <h1>Could not load the chat</h1>
        <p role="alert">{failed}</p>
        <button type="button" class="button" onClick={() => location.reload()}>
          Try again
        </button>
      </main>
    );
  }
  if (!state.ready) {
    return (
      <div class="splash" role="status">
        Loading…
      </div>
    );
  }

  const narrow = route.kind === "narrow" ? route.narrow : undefined;
  const sid = narrow ? narrowChannelId(narrow) : undefined;
  const sub = sid !== undefined ? state.subs.get(sid) : undefined;
  const me = state.users.get(state.self.user_id);
  const people = !showPeople ? [] : [...state.users.values()]
    .filter((u) => u.is_active !== false && !u.is_bot)
    .sort((a, b) => {
      const order = { active: 0, idle: 1, offline: 2 };
      return order[presenceOf(a.user_id)] - order[presenceOf(b.user_id)] || a.full_name.localeCompare(b.full_name);
    });

  return (
    <div class={`app${sidebarOpen ? " sidebar-open" : ""}`}>
      <header class="topbar" role="banner">
        <button type="button" class="icon-button sidebar-toggle" aria-label="Show sidebar" aria-expanded={sidebarOpen} aria-controls="left-sidebar" onClick={() => setSidebarOpen(!sidebarOpen)}>
          <IconMenu />
        </button>
        <a class="brand" href="#inbox">
          {state.realm.iconSource === "U" && state.realm.iconUrl ? (
            <img class="brand-icon" src={state.realm.iconUrl} alt={`${state.realm.name} icon`} width={24} height={24} />
          ) : (
            <IconLogo />
          )}
          <span class="brand-name">{state.realm.name || "Chat"}</span>
        </a>
        <SearchBox />
        {state.connection !== "ok" && (
          <span class="connection" role="status">
            Reconnecting…
          </span>
        )}
        <div class="me">
          <Avatar url={me?.avatar_url} name={state.self.full_name} id={state.self.user_id} size={28} />
          <span class="me-name">{state.self.full_name}</span>
          <a class="icon-button settings-link" href="#settings/profile" aria-label="Settings" title="Settings" aria-current={route.kind === "settings" ? "page" : undefined}>
            <IconGear />
          </a>
          <button type="button" class="button small" onClick={() => void logout()}>
            Log out
          </button>
        </div>
      </header>
      <div class="left-sidebar" id="left-sidebar">
        <Sidebar onNavigate={() => setSidebarOpen(false)} />
      </div>
      {sidebarOpen && <div class="scrim" onClick={() => setSidebarOpen(false)} aria-hidden="true" />}
      <main class="center">
        {state.notice && (
          <div class="notice" role="status">
            <span>{state.notice}</span>
            <button type="button" class="icon-button" aria-label="Dismiss" onClick={() => setNotice(undefined)}>
              ×
            </button>
          </div>
        )}
        {route.kind === "settings" ? (
          <SettingsScreen section={route.section} />
        ) : narrow && state.view ? (
          <section class="messages" aria-label="Messages">
            <div class="narrow-bar">
              <h2 class="view-title">{narrowTitle(narrow)}</h2>
              {sub && (
                <button type="button" class="button small" onClick={() => void setChannelProperty(sub.stream_id, "is_muted", !sub.is_muted)}>
                  {sub.is_muted ? "Unmute channel" : "Mute channel"}
                </button>
              )}
            </div>
            <MessageList v={v} />
          </section>
        ) : (
          <Inbox />
        )}
        {route.kind !== "settings" && <Compose narrowKey={narrowKeyOf(narrow)} narrow={narrow} queueId={() => loop.queueId} />}
      </main>
      <aside class="right-sidebar" aria-label="People">
        <h2 class="sidebar-heading">People</h2>
        <ul>
          {people.map((u) => {
            const p = presenceOf(u.user_id);
            return (
              <li key={u.user_id}>
                <a href={`#narrow/dm/${u.user_id}-${encodeURIComponent(u.full_name.replace(/ /g, "-")).replace(/\./g, "%2E").replace(/%/g, ".")}`}>
                  <span class={`presence ${p}`} aria-hidden="true" />
                  {u.full_name}
                  <span class="visually-hidden"> ({p})</span>
                </a>
              </li>
            );
          })}
        </ul>
      </aside>
    </div>
  );
}
