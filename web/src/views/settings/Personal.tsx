// One's own settings: profile (name, avatar), password, notifications and display.

import { useRef, useState } from "preact/hooks";
import { state } from "../../store";
import { changePassword, deleteAvatar, setFullName, setUserSetting, uploadAvatar } from "../../settingsActions";
import { Avatar } from "../Avatar";
import { Outcome, Section, Toggle, useDraft, useId, useSave } from "./form";

export function Profile() {
  const save = useSave();
  const avatarSave = useSave();
  const [name, setName, dirty] = useDraft(state.self.full_name);
  const file = useRef<HTMLInputElement>(null);
  const me = state.users.get(state.self.user_id);
  const nameId = useId("full-name");
  const uploaded = state.self.avatar_source === "U";
  return (
    <>
      <Section title="Your name">
        <form
          class="settings-form"
          onSubmit={(e) => {
            e.preventDefault();
            void save.run(() => setFullName(name.trim()));
          }}
        >
          <label for={nameId}>Full name</label>
          <input id={nameId} type="text" value={name} maxLength={100} required onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          <div class="settings-buttons">
            <button type="submit" class="button primary" disabled={save.busy || !dirty}>
              Save name
            </button>
          </div>
        </form>
        <Outcome save={save} />
      </Section>
      <Section title="Avatar">
        <div class="settings-avatar">
          <Avatar url={me?.avatar_url} name={state.self.full_name} id={state.self.user_id} size={96} label="Your avatar" />
          <div class="settings-buttons">
            <input
              ref={file}
              hidden
              tabIndex={-1}
              type="file"
              accept="image/png,image/jpeg,image/gif,image/webp"
              onChange={() => {
                const f = file.current?.files?.[0];
                if (f) void avatarSave.run(() => uploadAvatar(f), "Avatar uploaded").finally(() => file.current && (file.current.value = ""));
              }}
            />
            <button type="button" class="button" disabled={avatarSave.busy} onClick={() => file.current?.click()}>
              Upload avatar
            </button>
            {uploaded && (
              <button type="button" class="button" disabled={avatarSave.busy} onClick={() => void avatarSave.run(deleteAvatar, "Avatar deleted")}>
                Delete avatar
              </button>
            )}
          </div>
        </div>
        <Outcome save={avatarSave} />
      </Section>
    </>
  );
}

export function Account() {
  const save = useSave();
  const [oldPassword, setOld] = useState("");
  const [newPassword, setNew] = useState("");
  const oldId = useId("old-password");
  const newId = useId("new-password");
  return (
    <Section title="Password">
      <p class="settings-hint">Your email: {state.self.email}</p>
      <form
        class="settings-form"
        onSubmit={async (e) => {
          e.preventDefault();
          if (await save.run(() => changePassword(oldPassword, newPassword), "Your password has been changed.")) {
            setOld("");
            setNew("");
          }
        }}
      >
        <label for={oldId}>Current password</label>
        <input id={oldId} type="password" autocomplete="current-password" value={oldPassword} required onInput={(e) => setOld((e.target as HTMLInputElement).value)} />
        <label for={newId}>New password</label>
        <input id={newId} type="password" autocomplete="new-password" value={newPassword} required onInput={(e) => setNew((e.target as HTMLInputElement).value)} />
        <div class="settings-buttons">
          <button type="submit" class="button primary" disabled={save.busy}>
            Change password
          </button>
        </div>
      </form>
      <Outcome save={save} />
    </Section>
  );
}

/** Zulip's notification settings, grouped as its settings page groups them (those this server has). */
const NOTIFICATIONS: [string, [string, string][]][] = [
  [
    "Channels",
    [
      ["enable_stream_desktop_notifications", "Desktop notifications for channel messages"],
      ["enable_stream_audible_notifications", "Sounds for channel messages"],
      ["enable_stream_push_notifications", "Mobile notifications for channel messages"],
      ["enable_stream_email_notifications", "Email notifications for channel messages"],
      ["wildcard_mentions_notify", "Notify for @all and @everyone mentions"],
    ],
  ],
  [
    "Followed topics",
    [
      ["enable_followed_topic_desktop_notifications", "Desktop notifications for followed topics"],
      ["enable_followed_topic_audible_notifications", "Sounds for followed topics"],
      ["enable_followed_topic_push_notifications", "Mobile notifications for followed topics"],
      ["enable_followed_topic_email_notifications", "Email notifications for followed topics"],
      ["enable_followed_topic_wildcard_mentions_notify", "Notify for @all and @everyone mentions in followed topics"],
    ],
  ],
  [
    "Direct messages and mentions",
    [
      ["enable_desktop_notifications", "Desktop notifications"],
      ["enable_sounds", "Sounds"],
      ["pm_content_in_desktop_notifications", "Include the content of direct messages in desktop notifications"],
      ["enable_offline_push_notifications", "Mobile notifications when away"],
      ["enable_online_push_notifications", "Mobile notifications even when online"],
      ["enable_offline_email_notifications", "Email notifications when away"],
    ],
  ],
  [
    "Email",
    [
      ["message_content_in_email_notifications", "Include the message content in email notifications"],
      ["enable_digest_emails", "Send digest emails when away"],
      ["enable_login_emails", "Email me about new logins"],
      ["enable_marketing_emails", "Send me news and updates"],
    ],
  ],
];

function SettingToggle({ name, label, save }: { name: string; label: string; save: ReturnType<typeof useSave> }) {
  return <Toggle label={label} checked={!!state.settings[name]} onChange={(v) => void save.run(() => setUserSetting(name, v))} />;
}

function SettingSelect({ name, label, options, save }: { name: string; label: string; options: [string, string][]; save: ReturnType<typeof useSave> }) {
  const id = useId("select");
  const value = String(state.settings[name] ?? "");
  return (
    <div class="settings-field">
      <label for={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(e) => {
          const raw = (e.target as HTMLSelectElement).value;
          const typed = typeof state.settings[name] === "number" ? Number(raw) : typeof state.settings[name] === "boolean" ? raw === "true" : raw;
          void save.run(() => setUserSetting(name, typed));
        }}
      >
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

export function Notifications() {
  const save = useSave();
  const sounds = (state.settings.available_notification_sounds as string[] | undefined) ?? [];
  return (
    <>
      <Outcome save={save} />
      {NOTIFICATIONS.map(([title, items]) => {
        const present = items.filter(([name]) => name in state.settings);
        if (!present.length) return null;
        return (
          <Section key={title} title={title}>
            {present.map(([name, label]) => (
              <SettingToggle key={name} name={name} label={label} save={save} />
            ))}
          </Section>
        );
      })}
      {"notification_sound" in state.settings && (
        <Section title="Sound">
          <SettingSelect name="notification_sound" label="Notification sound" options={[["none", "None"], ...sounds.map((s): [string, string] => [s, s])]} save={save} />
        </Section>
      )}
    </>
  );
}

export function Display() {
  const save = useSave();
  const emojisets = (state.settings.emojiset_choices as { key: string; text: string }[] | undefined) ?? [];
  return (
    <>
      <Outcome save={save} />
      <Section title="Time and layout">
        <SettingSelect name="twenty_four_hour_time" label="Time format" options={[["false", "12-hour (3:00 PM)"], ["true", "24-hour (15:00)"]]} save={save} />
        {"web_home_view" in state.settings && (
          <SettingSelect name="web_home_view" label="Home view" options={[["inbox", "Inbox"], ["recent_topics", "Recent conversations"], ["all_messages", "All messages"]]} save={save} />
        )}
        <SettingToggle name="enter_sends" label="Enter sends a message (Shift+Enter for a new line)" save={save} />
      </Section>
      {"emojiset" in state.settings && emojisets.length > 0 && (
        <Section title="Emoji">
          <SettingSelect name="emojiset" label="Emoji style" options={emojisets.map((e): [string, string] => [e.key, e.text])} save={save} />
          {"translate_emoticons" in state.settings && <SettingToggle name="translate_emoticons" label="Convert emoticons such as :) to emoji" save={save} />}
        </Section>
      )}
    </>
  );
}
