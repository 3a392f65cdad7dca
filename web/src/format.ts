// Times, names and initials for display (Intl, no date library).

import { state } from "./store";

// Intl formatters are costly to build (a millisecond or more each): built once, reused.
const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(key: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let f = formatters.get(key);
  if (!f) formatters.set(key, (f = new Intl.DateTimeFormat(undefined, options)));
  return f;
}

export function formatTime(ts: number): string {
  const h12 = !state.settings.twenty_four_hour_time;
  return formatter(`time:${h12}`, { hour: "numeric", minute: "2-digit", hour12: h12 }).format(new Date(ts * 1000));
}

export function formatDay(ts: number): string {
  const d = new Date(ts * 1000);
  const now = new Date();
  const sameYear = d.getFullYear() === now.getFullYear();
  if (d.toDateString() === now.toDateString()) return "Today";
  const y = new Date(now);
  y.setDate(now.getDate() - 1);
  if (d.toDateString() === y.toDateString()) return "Yesterday";
  return formatter(`day:${sameYear}`, { weekday: "short", month: "short", day: "numeric", year: sameYear ? undefined : "numeric" }).format(d);
}

export function formatFull(ts: number): string {
  return formatter("full", { dateStyle: "full", timeStyle: "short" }).format(new Date(ts * 1000));
}

export function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  if (parts.length === 0) return "?";
  const first = [...parts[0]!][0] ?? "";
  const last = parts.length > 1 ? [...parts[parts.length - 1]!][0] ?? "" : "";
  return (first + last).toUpperCase();
}

/** A stable colour for a person's initials avatar. */
export function colorFor(id: number): string {
  const hues = [210, 340, 160, 30, 270, 190, 0, 120, 45, 300];
  return `hsl(${hues[id % hues.length]}, 55%, 45%)`;
}

export function dmTitle(ids: number[]): string {
  return ids.map((id) => state.users.get(id)?.full_name ?? `User ${id}`).join(", ");
}
