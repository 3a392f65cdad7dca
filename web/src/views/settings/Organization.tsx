// The organization's profile (name, description, icon and logos), its settings (the
// notification bot's announcement channels; the message retention period, owners only), its
// join rules and its default channels (administrators).

import { useState } from "preact/hooks";
import { state, type GroupSetting, type RealmGroupSettingName } from "../../store";
import {
  addDefaultChannel,
  addRealmDomain,
  deleteRealmIcon,
  deleteRealmLogo,
  removeDefaultChannel,
  removeRealmDomain,
  setRealmRetention,
  updateRealm,
  uploadRealmIcon,
  uploadRealmLogo,
} from "../../settingsActions";
import { GroupSelect } from "./Channels";
import { ConfirmDialog, describeRetention, NameDescriptionForm, Outcome, RetentionSelect, retentionWarning, SavedToggle, Section, Toggle, useDraft, useId, useSave } from "./form";

export function OrganizationProfile() {
  const save = useSave();
  return (
    <>
      <Section title="Name and description">
        <NameDescriptionForm
          nameLabel="Organization name"
          descriptionLabel="Organization description"
          name={state.realm.name}
          description={state.realm.description}
          nameMaxLength={40}
          rows={4}
          save={save}
          onSave={updateRealm}
        />
        <Outcome save={save} />
      </Section>
      <RealmImage
        title="Organization icon"
        what="icon"
        url={state.realm.iconUrl}
        uploaded={state.realm.iconSource === "U"}
        upload={uploadRealmIcon}
        remove={deleteRealmIcon}
      />
      <RealmImage
        title="Organization logo"
        what="logo"
        url={state.realm.logoUrl}
        uploaded={state.realm.logoSource === "U"}
        upload={(f) => uploadRealmLogo(f, false)}
        remove={() => deleteRealmLogo(false)}
      />
      <RealmImage
        title="Organization night logo"
        what="night logo"
        hint="Shown instead of the logo with the dark theme."
        url={state.realm.nightLogoUrl}
        uploaded={state.realm.nightLogoSource === "U"}
        upload={(f) => uploadRealmLogo(f, true)}
        remove={() => deleteRealmLogo(true)}
      />
    </>
  );
}

/** The icon or a logo: its current image, "Upload …" (a file input) and, for an uploaded one, "Remove …". */
function RealmImage(props: {
  title: string;
  what: string;
  hint?: string;
  url: string;
  uploaded: boolean;
  upload: (f: File) => Promise<unknown>;
  remove: () => Promise<unknown>;
}) {
  const save = useSave();
  const kind = props.what.replace(/ /g, "-");
  const inputId = useId(`realm-${kind}`);
  return (
    <Section title={props.title}>
      {props.hint && <p class="settings-hint">{props.hint}</p>}
      <div class="settings-avatar">
        {props.url && <img class={`realm-image-preview realm-${kind}-preview`} src={props.url} alt={`Current organization ${props.what}`} height={64} />}
        <div class="settings-buttons">
          <label class={`button${save.busy ? " disabled" : ""}`} for={inputId}>
            Upload {props.what}
          </label>
          <input
            id={inputId}
            class="visually-hidden"
            type="file"
            accept="image/png,image/jpeg,image/gif,image/webp"
            disabled={save.busy}
            onChange={(e) => {
              const input = e.target as HTMLInputElement;
              const f = input.files?.[0];
              if (f) void save.run(() => props.upload(f), `${props.title} uploaded`).finally(() => (input.value = ""));
            }}
          />
          {props.uploaded && (
            <button type="button" class="button" disabled={save.busy} onClick={() => void save.run(props.remove, `${props.title} removed`)}>
              Remove {props.what}
            </button>
          )}
        </div>
      </div>
      <Outcome save={save} />
    </Section>
  );
}

/** Zulip's labels of the organization's permissions, by section; `everyone`: whether guests may hold it. */
const REALM_PERMISSIONS: [string, [RealmGroupSettingName, string, boolean][]][] = [
  [
    "Channel permissions",
    [
      ["can_create_public_channel_group", "Who can create public channels", false],
      ["can_create_private_channel_group", "Who can create private channels", false],
      ["can_set_topics_policy_group", "Who can configure per-channel topic settings", false],
      ["can_add_subscribers_group", "Who can subscribe others to channels", false],
    ],
  ],
  [
    "Moving and deleting messages",
    [
      ["can_move_messages_between_channels_group", "Who can move messages to another channel", false],
      ["can_move_messages_between_topics_group", "Who can move messages to another topic", true],
      ["can_resolve_topics_group", "Who can resolve topics", true],
      ["can_delete_any_message_group", "Who can delete any message", false],
      ["can_delete_own_message_group", "Who can delete their own messages", true],
    ],
  ],
  [
    "Other permissions",
    [
      ["can_mention_many_users_group", "Who can notify a large number of users with a wildcard mention", true],
      ["can_add_custom_emoji_group", "Who can add custom emoji", false],
      ["can_create_groups", "Who can create user groups", false],
      ["can_manage_all_groups", "Who can administer all user groups", false],
      ["can_invite_users_group", "Who can send email invitations to new users", false],
      ["create_multiuse_invite_group", "Who can create reusable invitation links", false],
    ],
  ],
];

/** The organization's group permissions; each section saves its changed settings at once. */
function OrganizationPermissions() {
  return (
    <>
      {REALM_PERMISSIONS.map(([title, settings]) => (
        <PermissionSection key={title} title={title} settings={settings} />
      ))}
    </>
  );
}

function PermissionSection({ title, settings }: { title: string; settings: [RealmGroupSettingName, string, boolean][] }) {
  const save = useSave();
  const stored = state.realm.groupSettings;
  const drafts = settings.map(([key]) => useDraft<GroupSetting | undefined>(stored[key] ?? undefined));
  const dirty = drafts.some(([, , d]) => d);
  return (
    <Section title={title}>
      <form
        class="settings-form"
        aria-label={title}
        onSubmit={(e) => {
          e.preventDefault();
          const params: Record<string, unknown> = {};
          settings.forEach(([key], i) => {
            const [value, , changed] = drafts[i];
            if (changed && typeof value === "number") params[key] = JSON.stringify({ new: value });
          });
          void save.run(() => updateRealm(params));
        }}
      >
        {settings.map(([key, label, everyone], i) => (
          <GroupSelect key={key} label={label} value={drafts[i][0]} onChange={drafts[i][1]} allowEveryone={everyone} />
        ))}
        <div class="settings-buttons">
          <button type="submit" class="button primary" disabled={save.busy || !dirty}>
            Save changes
          </button>
        </div>
      </form>
      <Outcome save={save} />
    </Section>
  );
}

export function JoinRules() {
  const save = useSave();
  const domainSave = useSave();
  const [domain, setDomain] = useState("");
  const [subdomains, setSubdomains] = useState(false);
  const domainId = useId("domain");
  const r = state.realm;
  const set = (name: string) => (v: boolean) => updateRealm({ [name]: v });
  return (
    <>
      <Section title="Joining the organization">
        <SavedToggle label="Invitations are required for joining the organization" stored={r.inviteRequired} save={save} onSave={set("invite_required")} />
        <SavedToggle label="Restrict email addresses of new users to the allowed domains" stored={r.emailsRestrictedToDomains} save={save} onSave={set("emails_restricted_to_domains")} />
        <SavedToggle label="Don't allow disposable email addresses" stored={r.disallowDisposableEmails} save={save} onSave={set("disallow_disposable_email_addresses")} />
        <Outcome save={save} />
      </Section>
      <Section title="Allowed domains">
        <ul class="settings-list" aria-label="Allowed domains">
          {r.domains.map((d) => (
            <li key={d.domain}>
              <span>
                {d.domain}
                {d.allow_subdomains ? " (and subdomains)" : ""}
              </span>
              <button type="button" class="button small" onClick={() => void domainSave.run(() => removeRealmDomain(d.domain), "Removed")}>
                Remove<span class="visually-hidden"> {d.domain}</span>
              </button>
            </li>
          ))}
          {r.domains.length === 0 && <li class="empty">No domains yet</li>}
        </ul>
        <form
          class="settings-inline"
          onSubmit={async (e) => {
            e.preventDefault();
            if (await domainSave.run(() => addRealmDomain(domain.trim(), subdomains), "Added")) setDomain("");
          }}
        >
          <label for={domainId}>Domain</label>
          <input id={domainId} type="text" value={domain} required placeholder="example.com" onInput={(e) => setDomain((e.target as HTMLInputElement).value)} />
          <Toggle label="Allow subdomains" checked={subdomains} onChange={setSubdomains} />
          <button type="submit" class="button" disabled={domainSave.busy}>
            Add domain
          </button>
        </form>
        <Outcome save={domainSave} />
      </Section>
      {state.self.is_admin && <OrganizationPermissions />}
    </>
  );
}

export function DefaultChannels() {
  const save = useSave();
  const [choice, setChoice] = useState("");
  const selectId = useId("default-channel");
  const defaults = new Set(state.realm.defaultChannels);
  const all = [...state.channels.values()].sort((a, b) => a.name.localeCompare(b.name));
  const candidates = all.filter((c) => !c.invite_only && !c.is_archived && !defaults.has(c.stream_id));
  return (
    <Section title="Channels new members join">
      <ul class="settings-list" aria-label="Default channels">
        {all
          .filter((c) => defaults.has(c.stream_id))
          .map((c) => (
            <li key={c.stream_id}>
              <span>#{c.name}</span>
              <button type="button" class="button small" onClick={() => void save.run(() => removeDefaultChannel(c.stream_id), "Removed")}>
                Remove<span class="visually-hidden"> #{c.name}</span>
              </button>
            </li>
          ))}
        {defaults.size === 0 && <li class="empty">No default channels</li>}
      </ul>
      <form
        class="settings-inline"
        onSubmit={async (e) => {
          e.preventDefault();
          if (choice && (await save.run(() => addDefaultChannel(Number(choice)), "Added"))) setChoice("");
        }}
      >
        <label for={selectId}>Channel to add</label>
        <select id={selectId} value={choice} onChange={(e) => setChoice((e.target as HTMLSelectElement).value)}>
          <option value="">Choose a public channel…</option>
          {candidates.map((c) => (
            <option key={c.stream_id} value={String(c.stream_id)}>
              #{c.name}
            </option>
          ))}
        </select>
        <button type="submit" class="button" disabled={save.busy || !choice}>
          Add default channel
        </button>
      </form>
      <Outcome save={save} />
    </Section>
  );
}

/** The channels the notification bot can announce in: those the administrator can read. */
function announcementChoices(current: number) {
  return [...state.channels.values()]
    .filter((c) => c.stream_id === current || (!c.is_archived && (!c.invite_only || state.subs.has(c.stream_id))))
    .sort((a, b) => a.name.localeCompare(b.name));
}

function AnnouncementSelect({ label, value, onChange }: { label: string; value: number; onChange: (v: number) => void }) {
  const id = useId("announcements");
  return (
    <>
      <label for={id}>{label}</label>
      <select id={id} value={String(value)} onChange={(e) => onChange(Number((e.target as HTMLSelectElement).value))}>
        <option value="-1">Disabled</option>
        {announcementChoices(value).map((c) => (
          <option key={c.stream_id} value={String(c.stream_id)}>
            #{c.name}
          </option>
        ))}
      </select>
    </>
  );
}

/** Zulip's "Organization settings": where the notification bot announces, and (owners) how long messages are kept. */
export function OrganizationSettings() {
  const r = state.realm;
  const save = useSave();
  const [newChannels, setNewChannels, newDirty] = useDraft(r.newChannelAnnouncementsChannel);
  const [signups, setSignups, signupDirty] = useDraft(r.signupAnnouncementsChannel);
  const [updates, setUpdates, updatesDirty] = useDraft(r.zulipUpdateAnnouncementsChannel);
  return (
    <>
      <Section title="Notifications">
        <form
          class="settings-form"
          aria-label="Notifications"
          onSubmit={(e) => {
            e.preventDefault();
            const params: Record<string, unknown> = {};
            if (newDirty) params.new_stream_announcements_stream_id = newChannels;
            if (signupDirty) params.signup_announcements_stream_id = signups;
            if (updatesDirty) params.zulip_update_announcements_stream_id = updates;
            void save.run(() => updateRealm(params));
          }}
        >
          <AnnouncementSelect label="New channel announcements" value={newChannels} onChange={setNewChannels} />
          <AnnouncementSelect label="New user announcements" value={signups} onChange={setSignups} />
          <AnnouncementSelect label="Zulip update announcements" value={updates} onChange={setUpdates} />
          <div class="settings-buttons">
            <button type="submit" class="button primary" disabled={save.busy || !(newDirty || signupDirty || updatesDirty)}>
              Save changes
            </button>
          </div>
        </form>
        <Outcome save={save} />
      </Section>
      {state.self.is_owner ? (
        <MessageRetention />
      ) : (
        <Section title="Message retention">
          <p>
            Message retention period: {describeRetention(r.messageRetentionDays)}. Only organization owners can change it.
          </p>
        </Section>
      )}
    </>
  );
}

/** The organization's message retention period (owners only, as the server requires). */
function MessageRetention() {
  const save = useSave();
  const stored = state.realm.messageRetentionDays;
  const [days, setDays, dirty] = useDraft<number | null>(stored);
  const [confirm, setConfirm] = useState(false);
  const submit = () => save.run(() => setRealmRetention(days ?? -1));
  const warning = retentionWarning(days, stored);
  return (
    <Section title="Message retention">
      <form
        class="settings-form"
        aria-label="Message retention"
        onSubmit={(e) => {
          e.preventDefault();
          if (warning) setConfirm(true);
          else void submit();
        }}
      >
        <RetentionSelect value={days} onChange={setDays} />
        <div class="settings-buttons">
          <button type="submit" class="button primary" disabled={save.busy || !dirty}>
            Save changes
          </button>
        </div>
      </form>
      <Outcome save={save} />
      {confirm && warning && (
        <ConfirmDialog
          title="Change the organization's message retention period?"
          body={warning}
          action="Confirm"
          onConfirm={submit}
          onClose={() => setConfirm(false)}
        />
      )}
    </Section>
  );
}
