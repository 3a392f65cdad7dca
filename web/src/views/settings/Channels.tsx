// Channel administration: name, description, privacy, the permission groups (Zulip's
// subscription, messaging, moderation and administrative permissions), the message retention
// period (owners only), archiving.

import { useState } from "preact/hooks";
import { state } from "../../store";
import { CHANNEL_GROUP_SETTINGS, type Channel, type ChannelGroupSettingName, type GroupSetting } from "../../types";
import { archiveChannel, privacyOf, updateChannel, SYSTEM_GROUP_NAMES, type Privacy } from "../../settingsActions";
import { ConfirmDialog, Outcome, RetentionSelect, retentionWarning, Section, useDraft, useId, useSave } from "./form";

/** The groups a permission can name: the role groups (Zulip's names), then the organization's own. */
export function groupChoices({ allowNobody = true, allowEveryone = true } = {}): [number, string][] {
  const system: [number, string][] = [];
  const own: [number, string][] = [];
  for (const g of state.groups.values()) {
    if (g.deactivated) continue;
    if (g.is_system_group) {
      if (g.name === "role:internet" || (!allowNobody && g.name === "role:nobody") || (!allowEveryone && g.name === "role:everyone")) continue;
      system.push([g.id, SYSTEM_GROUP_NAMES[g.name] ?? g.name]);
    } else own.push([g.id, g.name]);
  }
  const order = Object.keys(SYSTEM_GROUP_NAMES);
  const rank = (id: number) => order.indexOf(state.groups.get(id)?.name ?? "");
  system.sort((a, b) => rank(a[0]) - rank(b[0]));
  own.sort((a, b) => a[1].localeCompare(b[1]));
  return [...system, ...own];
}

/** A set of users and groups (Zulip's anonymous group), named by its people and groups. */
export function describeSet(value: GroupSetting | undefined): string {
  if (value === null || value === undefined || typeof value === "number") return "A custom set of people";
  const people = (value.direct_members ?? []).map((id) => state.users.get(id)?.full_name ?? `user ${id}`);
  const groups = (value.direct_subgroups ?? []).map((id) => {
    const name = state.groups.get(id)?.name ?? `group ${id}`;
    return SYSTEM_GROUP_NAMES[name] ?? name;
  });
  const names = [...people, ...groups];
  return names.length === 0 ? "Nobody" : `Custom: ${names.join(", ")}`;
}

export function GroupSelect({ label, value, onChange, hint, allowEveryone }: { label: string; value: GroupSetting | undefined; onChange: (id: number) => void; hint?: string; allowEveryone: boolean }) {
  const id = useId("group");
  const choices = groupChoices({ allowEveryone });
  const current = typeof value === "number" ? String(value) : "";
  return (
    <>
      <label for={id}>{label}</label>
      <select id={id} value={current} aria-describedby={hint ? `${id}-hint` : undefined} onChange={(e) => onChange(Number((e.target as HTMLSelectElement).value))}>
        {current === "" && <option value="">{describeSet(value)}</option>}
        {choices.map(([gid, name]) => (
          <option key={gid} value={String(gid)}>
            {name}
          </option>
        ))}
      </select>
      {hint && (
        <span class="settings-hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
    </>
  );
}

interface Permission {
  key: ChannelGroupSettingName;
  label: string;
  /** Whether "Everyone, including guests" may hold it (the server refuses it otherwise). */
  everyone: boolean;
  hint?: string;
}

/** The permission settings in Zulip's groups, with Zulip's labels. */
const PERMISSIONS: [string, Permission[]][] = [
  [
    "Subscription permissions",
    [
      { key: "can_subscribe_group", label: "Who can subscribe to this channel", everyone: false },
      { key: "can_add_subscribers_group", label: "Who can subscribe anyone to this channel", everyone: false },
      { key: "can_remove_subscribers_group", label: "Who can unsubscribe anyone from this channel", everyone: true },
    ],
  ],
  ["Messaging permissions", [{ key: "can_send_message_group", label: "Who can post to this channel", everyone: true }]],
  [
    "Moderation permissions",
    [
      { key: "can_move_messages_within_channel_group", label: "Who can move messages inside this channel", everyone: true },
      { key: "can_move_messages_out_of_channel_group", label: "Who can move messages out of this channel", everyone: true },
      { key: "can_resolve_topics_group", label: "Who can resolve topics in this channel", everyone: true },
      { key: "can_delete_any_message_group", label: "Who can delete any message in this channel", everyone: true },
      { key: "can_delete_own_message_group", label: "Who can delete their own messages in this channel", everyone: true },
    ],
  ],
  [
    "Administrative permissions",
    [{ key: "can_administer_channel_group", label: "Who can administer this channel", everyone: false, hint: "Administrators of the organization always can." }],
  ],
];

type Groups = Partial<Record<ChannelGroupSettingName, GroupSetting>>;

function storedGroups(c: Channel): Groups {
  return Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((k) => [k, c[k]]));
}

/** The group ids edited, for `updateChannel` (which sends only those that differ). */
function editedGroups(groups: Groups): Partial<Record<ChannelGroupSettingName, number>> {
  return Object.fromEntries(Object.entries(groups).filter(([, v]) => typeof v === "number"));
}

function ChannelForm({ c }: { c: Channel }) {
  const save = useSave();
  const [name, setName, nameDirty] = useDraft(c.name);
  const [description, setDescription, descDirty] = useDraft(c.description ?? "");
  const [privacy, setPrivacy, privacyDirty] = useDraft<Privacy>(privacyOf(c));
  // One draft per setting, so another administrator's change to one does not reset the others.
  const drafts = Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((k) => [k, useDraft<GroupSetting | undefined>(c[k])])) as Record<
    ChannelGroupSettingName,
    ReturnType<typeof useDraft<GroupSetting | undefined>>
  >;
  const [retention, setRetention, retentionDirty] = useDraft<number | null>(c.message_retention_days ?? null);
  const [confirm, setConfirm] = useState<"archive" | "retention" | undefined>();
  const nameId = useId("channel-name");
  const descId = useId("channel-description");
  const privacyId = useId("channel-privacy");
  const owner = state.self.is_owner;
  const groupsDirty = CHANNEL_GROUP_SETTINGS.some((k) => drafts[k][2]);
  const dirty = nameDirty || descDirty || privacyDirty || groupsDirty || (owner && retentionDirty);
  const submit = () =>
    save.run(() =>
      updateChannel(c, {
        name: name.trim(),
        description,
        privacy,
        groups: editedGroups(Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((k) => [k, drafts[k][0]]))),
        retention: owner ? retention : undefined,
      }),
    );
  const warning = owner && retentionDirty ? retentionWarning(retention, state.realm.messageRetentionDays) : undefined;
  return (
    <>
      <form
        class="settings-form"
        aria-label={`Settings of #${c.name}`}
        onSubmit={(e) => {
          e.preventDefault();
          if (warning) setConfirm("retention");
          else void submit();
        }}
      >
        <label for={nameId}>Channel name</label>
        <input id={nameId} type="text" value={name} maxLength={60} required onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        <label for={descId}>Channel description</label>
        <textarea id={descId} rows={3} value={description} onInput={(e) => setDescription((e.target as HTMLTextAreaElement).value)} />
        <label for={privacyId}>Who can access the channel</label>
        <select id={privacyId} value={privacy} onChange={(e) => setPrivacy((e.target as HTMLSelectElement).value as Privacy)}>
          <option value="public">Public: anyone in the organization can join</option>
          <option value="private-shared">Private, shared history: subscribers see the whole history</option>
          <option value="private">Private, protected history: subscribers see messages from when they joined</option>
        </select>
        {PERMISSIONS.map(([legend, settings]) => (
          <fieldset key={legend} class="settings-fieldset">
            <legend>{legend}</legend>
            {settings.map((p) => (
              <GroupSelect
                key={p.key}
                label={p.label}
                value={drafts[p.key][0]}
                onChange={drafts[p.key][1]}
                hint={p.key === "can_subscribe_group" && privacy === "public" ? "Everyone but guests can subscribe to a public channel anyway." : p.hint}
                allowEveryone={p.everyone}
              />
            ))}
          </fieldset>
        ))}
        {owner && (
          <fieldset class="settings-fieldset">
            <legend>Message retention</legend>
            <RetentionSelect value={retention} onChange={setRetention} organizationDays={state.realm.messageRetentionDays} />
          </fieldset>
        )}
        <div class="settings-buttons">
          <button type="submit" class="button primary" disabled={save.busy || !dirty}>
            Save changes
          </button>
          <button type="button" class="button danger" onClick={() => setConfirm("archive")}>
            Archive channel
          </button>
        </div>
      </form>
      <Outcome save={save} />
      {confirm === "archive" && (
        <ConfirmDialog
          title={`Archive #${c.name}?`}
          body="Archiving a channel takes it out of everyone's channel list; its messages stay. An administrator can unarchive it later."
          action="Archive"
          onConfirm={() => save.run(() => archiveChannel(c.stream_id), `#${c.name} archived`)}
          onClose={() => setConfirm(undefined)}
        />
      )}
      {confirm === "retention" && warning && (
        <ConfirmDialog
          title={`Change the message retention period of #${c.name}?`}
          body={warning}
          action="Confirm"
          onConfirm={submit}
          onClose={() => setConfirm(undefined)}
        />
      )}
    </>
  );
}

export function ChannelSettings() {
  const [selected, setSelected] = useState<number | undefined>();
  const selectId = useId("channel-choice");
  const channels = [...state.channels.values()].filter((c) => !c.is_archived).sort((a, b) => a.name.localeCompare(b.name));
  const c = selected !== undefined ? state.channels.get(selected) : undefined;
  return (
    <Section title="Channels of the organization">
      <div class="settings-field">
        <label for={selectId}>Channel</label>
        <select id={selectId} value={c ? String(c.stream_id) : ""} onChange={(e) => setSelected(Number((e.target as HTMLSelectElement).value) || undefined)}>
          <option value="">Choose a channel…</option>
          {channels.map((x) => (
            <option key={x.stream_id} value={String(x.stream_id)}>
              #{x.name}
              {x.invite_only ? " (private)" : ""}
            </option>
          ))}
        </select>
      </div>
      {c ? <ChannelForm key={c.stream_id} c={c} /> : selected !== undefined && <p role="status">This channel was archived or is no longer visible.</p>}
    </Section>
  );
}
