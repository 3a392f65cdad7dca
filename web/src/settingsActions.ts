// What the settings screens change, each through the /api/v1 every client uses. The store
// is updated by the events these changes send (a second tab and other people see the same);
// only one's own toggles are applied at once, so a checkbox does not flicker back.
// Imported by the settings chunk only (views/settings/), which loads when first opened.

import { del, patch, post } from "./api";
import { changed, state } from "./store";
import { CHANNEL_GROUP_SETTINGS, type Channel, type ChannelGroupSettingName } from "./types";

// ---- Personal ------------------------------------------------------------------------------

export function setFullName(fullName: string) {
  return patch("settings", { full_name: fullName });
}

export function changePassword(oldPassword: string, newPassword: string) {
  return patch("settings", { old_password: oldPassword, new_password: newPassword });
}

/** One of the person's own settings (notifications, display); shown at once, reverted if refused. */
export async function setUserSetting(name: string, value: unknown): Promise<void> {
  const before = state.settings[name];
  state.settings = { ...state.settings, [name]: value };
  changed();
  try {
    await patch("settings", { [name]: typeof value === "string" ? value : JSON.stringify(value) });
  } catch (e) {
    state.settings = { ...state.settings, [name]: before };
    changed();
    throw e;
  }
}

export function uploadAvatar(file: File) {
  const form = new FormData();
  form.append("file", file, file.name);
  return post("users/me/avatar", form);
}

export function deleteAvatar() {
  return del("users/me/avatar");
}

// ---- The organization (administrators; the server refuses others) -------------------------------

export function updateRealm(params: Record<string, unknown>) {
  return patch("realm", params);
}

/** POST /realm/icon: the one file of a multipart body; the `realm` `update_dict` event updates the store. */
export function uploadRealmIcon(file: File) {
  const form = new FormData();
  form.append("file", file, file.name);
  return post("realm/icon", form);
}

export function deleteRealmIcon() {
  return del("realm/icon");
}

/** POST /realm/logo (the day logo; `night` picks the dark theme's). */
export function uploadRealmLogo(file: File, night = false) {
  const form = new FormData();
  form.append("file", file, file.name);
  form.append("night", JSON.stringify(night));
  return post("realm/logo", form);
}

export function deleteRealmLogo(night = false) {
  return del("realm/logo", { night });
}

/** A retention period as the API takes it: days, `unlimited` (-1), or (a channel) `realm_default` (null). */
export function retentionParam(days: number | null): string {
  if (days === null) return "realm_default";
  return days === -1 ? "unlimited" : String(days);
}

/** The organization's message retention period (owners only): days, or -1 for forever. */
export function setRealmRetention(days: number) {
  return patch("realm", { message_retention_days: JSON.stringify(days === -1 ? "unlimited" : days) });
}

export function addRealmDomain(domain: string, allowSubdomains: boolean) {
  return post("realm/domains", { domain, allow_subdomains: allowSubdomains });
}

export function removeRealmDomain(domain: string) {
  return del(`realm/domains/${encodeURIComponent(domain)}`);
}

export function addDefaultChannel(streamId: number) {
  return post("default_streams", { stream_id: String(streamId) });
}

export function removeDefaultChannel(streamId: number) {
  return del("default_streams", { stream_id: String(streamId) });
}

/** Who may access a channel, in Zulip's three combinations. */
export type Privacy = "public" | "private-shared" | "private";

export function privacyOf(c: Channel): Privacy {
  if (!c.invite_only) return "public";
  return c.history_public_to_subscribers ? "private-shared" : "private";
}

export interface ChannelChanges {
  name?: string;
  description?: string;
  privacy?: Privacy;
  /** Permission settings by name: the new group id. */
  groups?: Partial<Record<ChannelGroupSettingName, number>>;
  /** Days, -1 forever, null the organization's period (owners only). */
  retention?: number | null;
}

/** PATCH /streams/{id} with only what changed. */
export function updateChannel(c: Channel, ch: ChannelChanges) {
  const params: Record<string, unknown> = {};
  if (ch.name !== undefined && ch.name !== c.name) params.new_name = ch.name;
  if (ch.description !== undefined && ch.description !== (c.description ?? "")) params.description = ch.description;
  if (ch.privacy !== undefined && ch.privacy !== privacyOf(c)) {
    params.is_private = ch.privacy !== "public";
    params.history_public_to_subscribers = ch.privacy !== "private";
  }
  for (const k of CHANNEL_GROUP_SETTINGS) {
    const v = ch.groups?.[k];
    if (v !== undefined && v !== c[k]) params[k] = { new: v };
  }
  if (ch.retention !== undefined && ch.retention !== (c.message_retention_days ?? null)) params.message_retention_days = retentionParam(ch.retention);
  if (Object.keys(params).length === 0) return Promise.resolve({});
  return patch(`streams/${c.stream_id}`, params);
}

export function archiveChannel(streamId: number) {
  return del(`streams/${streamId}`);
}

export function setRole(userId: number, role: number) {
  return patch(`users/${userId}`, { role: String(role) });
}

export function deactivateUser(userId: number) {
  return del(`users/${userId}`);
}

export function reactivateUser(userId: number) {
  return post(`users/${userId}/reactivate`);
}

export function updateGroup(groupId: number, params: { name?: string; description?: string }) {
  return patch(`user_groups/${groupId}`, params);
}

export function changeGroupMembers(groupId: number, add: number[], remove: number[]) {
  return post(`user_groups/${groupId}/members`, { add, delete: remove });
}

export function createGroup(name: string, description: string, members: number[]) {
  return post("user_groups/create", { name, description, members });
}

/** Zulip's role codes and their names. */
export const ROLES: [number, string][] = [
  [100, "Owner"],
  [200, "Administrator"],
  [300, "Moderator"],
  [400, "Member"],
  [600, "Guest"],
];

/** How a system group is named in the interface (Zulip's names). */
export const SYSTEM_GROUP_NAMES: Record<string, string> = {
  "role:nobody": "Nobody",
  "role:owners": "Owners",
  "role:administrators": "Administrators",
  "role:moderators": "Moderators",
  "role:fullmembers": "Full members",
  "role:members": "Members",
  "role:everyone": "Everyone, including guests",
  "role:internet": "Everyone on the internet",
};
