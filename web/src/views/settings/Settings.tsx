// The settings area (a chunk of its own, loaded when first opened): Zulip's hash routes,
// `#settings/<section>` for one's own settings and `#organization/<section>` for the
// organization's, the latter listed for administrators only (the server refuses others anyway).

import type { FunctionComponent } from "preact";
import { state } from "../../store";
import { Account, Display, Notifications, Profile } from "./Personal";
import { DefaultChannels, JoinRules, OrganizationProfile, OrganizationSettings } from "./Organization";
import { ChannelSettings } from "./Channels";
import { UserSettings } from "./Users";
import { GroupSettings } from "./Groups";

interface Screen {
  hash: string;
  title: string;
  view: FunctionComponent;
}

const PERSONAL: Screen[] = [
  { hash: "settings/profile", title: "Profile", view: Profile },
  { hash: "settings/account-and-privacy", title: "Account and password", view: Account },
  { hash: "settings/notifications", title: "Notifications", view: Notifications },
  { hash: "settings/preferences", title: "Display", view: Display },
];

const ORGANIZATION: Screen[] = [
  { hash: "organization/organization-profile", title: "Organization profile", view: OrganizationProfile },
  { hash: "organization/organization-settings", title: "Organization settings", view: OrganizationSettings },
  { hash: "organization/organization-permissions", title: "Join rules", view: JoinRules },
  { hash: "organization/channels", title: "Channels", view: ChannelSettings },
  { hash: "organization/default-channels-list", title: "Default channels", view: DefaultChannels },
  { hash: "organization/users", title: "Users", view: UserSettings },
  { hash: "organization/user-groups", title: "Groups", view: GroupSettings },
];

function ScreenList({ label, screens, current }: { label: string; screens: Screen[]; current: Screen }) {
  return (
    <>
      <h2 class="sidebar-heading">{label}</h2>
      <ul>
        {screens.map((s) => (
          <li key={s.hash} class={s === current ? "active" : ""}>
            <a href={`#${s.hash}`} aria-current={s === current ? "page" : undefined}>
              {s.title}
            </a>
          </li>
        ))}
      </ul>
    </>
  );
}

export function Settings({ section }: { section: string }) {
  const admin = state.self.is_admin;
  const screens = admin ? [...PERSONAL, ...ORGANIZATION] : PERSONAL;
  // `#organization` alone opens its first screen; anything unknown (or not allowed) the profile.
  const current = screens.find((s) => s.hash === section) ?? (admin && section === "organization" ? ORGANIZATION[0]! : PERSONAL[0]!);
  const View = current.view;
  return (
    <div class="settings">
      <nav class="settings-nav" aria-label="Settings sections">
        <ScreenList label="Personal settings" screens={PERSONAL} current={current} />
        {admin && <ScreenList label="Organization settings" screens={ORGANIZATION} current={current} />}
      </nav>
      <section class="settings-screen" aria-labelledby="settings-title">
        <h2 id="settings-title" class="view-title">
          {current.title}
        </h2>
        <View key={current.hash} />
      </section>
    </div>
  );
}
