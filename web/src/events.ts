// The one event queue: register, long-poll /events, apply each event to the store. On
// BAD_EVENT_QUEUE_ID (the queue expired) it registers again, reloads the state and refetches
// the open narrow (merged by id: nothing lost, nothing twice); on network errors it backs
// off and retries.

import { ApiError, get, post, del } from "./api";
import { applyEvent, changed, loadRegister, state } from "./store";
import { REGISTER_PARAMS } from "./registerParams";
import { takeRegister } from "./prefetch";


export interface EventLoopHooks {
  /** After a re-registration: fetch the open narrow again. */
  onReregistered(): void;
  onUnauthorized(): void;
}

export class EventLoop {
  queueId = "";
  lastEventId = -1;
  private stopped = false;
  private abort: AbortController | undefined;
  private failures = 0;
  private wake: (() => void) | undefined;

  constructor(private hooks: EventLoopHooks) {}

  /** Registers the queue and loads the state. `alongside`: a first window fetched at the
   * same time; the state waits for it, so that the first page is laid out and painted once
   * with both instead of twice. */
  async register(alongside?: Promise<unknown>): Promise<void> {
    const answer = takeRegister() ?? post<Record<string, unknown>>("register", REGISTER_PARAMS);
    if (alongside) await Promise.allSettled([answer, alongside]);
    const r = await answer;
    this.queueId = String(r.queue_id);
    this.lastEventId = Number(r.last_event_id);
    loadRegister(r);
  }

  start(): void {
    // Back online, or the page shown again: retry at once instead of waiting out a backoff.
    const wake = () => this.wake?.();
    if (typeof window !== "undefined") {
      window.addEventListener("online", wake);
      document.addEventListener("visibilitychange", () => document.visibilityState === "visible" && wake());
    }
    void this.loop();
  }

  /** Waits `ms`, or less if woken. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(done, ms);
      function done() {
        clearTimeout(t);
        resolve();
      }
      this.wake = () => {
        this.wake = undefined;
        done();
      };
    });
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
  }

  /** Polls again after `close`: the deleted queue is replaced by a fresh registration. */
  resume(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.loop();
  }

  /** Deletes the queue on the server (sign-out, page unload). */
  async close(): Promise<void> {
    this.stop();
    if (this.queueId) await del("events", { queue_id: this.queueId }).catch(() => {});
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      try {
        this.abort = new AbortController();
        const r = await get<{ events: Record<string, unknown>[] }>(
          "events",
          { queue_id: this.queueId, last_event_id: String(this.lastEventId) },
          { signal: this.abort.signal },
        );
        this.failures = 0;
        if (state.connection !== "ok") {
          state.connection = "ok";
          changed();
        }
        for (const e of r.events) {
          this.lastEventId = Math.max(this.lastEventId, Number(e.id));
          try {
            applyEvent(e);
          } catch (err) {
            console.error("event", e, err);
          }
        }
      } catch (err) {
        if (this.stopped) return;
        if (err instanceof ApiError && err.code === "BAD_EVENT_QUEUE_ID") {
          await this.reregister();
          continue;
        }
        // Any other refusal of the poll itself (not the network, not a rate limit): the
        // queue is not usable; a fresh one loses nothing (the view is fetched again).
        if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401 && err.status !== 429) {
          await this.reregister();
          continue;
        }
        if (err instanceof ApiError && err.status === 401) {
          this.hooks.onUnauthorized();
          return;
        }
        this.failures++;
        state.connection = "reconnecting";
        changed();
        const wait = Math.min(30000, 500 * 2 ** Math.min(this.failures, 6)) * (0.75 + Math.random() / 2);
        await this.sleep(wait);
      }
    }
  }

  private async reregister(): Promise<void> {
    for (let attempt = 0; !this.stopped; attempt++) {
      try {
        await this.register();
        state.connection = "ok";
        this.hooks.onReregistered();
        return;
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) {
          this.hooks.onUnauthorized();
          this.stop();
          return;
        }
        state.connection = "reconnecting";
        changed();
        await this.sleep(Math.min(30000, 1000 * 2 ** Math.min(attempt, 5)));
      }
    }
  }
}
