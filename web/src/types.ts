// Shapes of the Zulip API objects the client reads (only the fields it uses).

export interface Reaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: "unicode_emoji" | "realm_emoji" | "zulip_extra_emoji";
  user_id: number;
}

export interface DisplayRecipientUser {
  id: number;
  email: string;
  full_name: string;
}

export interface Message {
  id: number;
  type: "stream" | "private";
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  avatar_url: string | null;
  content: string;
  display_recipient: string | DisplayRecipientUser[];
  stream_id?: number;
  subject: string;
  timestamp: number;
  is_me_message?: boolean;
  flags: string[];
  reactions: Reaction[];
  last_edit_timestamp?: number;
  last_moved_timestamp?: number;
  /** Client-side: the message is still being sent. */
  local_id?: string;
}

export interface User {
  user_id: number;
  email: string;
  full_name: string;
  avatar_url: string | null;
  is_bot?: boolean;
  is_active?: boolean;
  role?: number;
  is_admin?: boolean;
  is_guest?: boolean;
}

export interface Subscription {
  stream_id: number;
  name: string;
  color?: string;
  is_muted: boolean;
  pin_to_top: boolean;
  invite_only?: boolean;
  description?: string;
}

/** A group-valued setting: a group id, or {direct_members, direct_subgroups}; null if unknown. */
export type GroupSetting = number | { direct_members?: number[]; direct_subgroups?: number[] } | null;

export interface Channel {
  stream_id: number;
  name: string;
  invite_only?: boolean;
  description?: string;
  history_public_to_subscribers?: boolean;
  is_web_public?: boolean;
  is_archived?: boolean;
  can_send_message_group?: GroupSetting;
  can_administer_channel_group?: GroupSetting;
  can_add_subscribers_group?: GroupSetting;
  can_remove_subscribers_group?: GroupSetting;
  can_subscribe_group?: GroupSetting;
  can_move_messages_within_channel_group?: GroupSetting;
  can_move_messages_out_of_channel_group?: GroupSetting;
  can_resolve_topics_group?: GroupSetting;
  can_delete_any_message_group?: GroupSetting;
  can_delete_own_message_group?: GroupSetting;
  /** Days; -1 forever; null the organization's period. */
  message_retention_days?: number | null;
}

/** A channel's permission settings (`PATCH /streams/{id}` takes each as `{new, old}`). */
export const CHANNEL_GROUP_SETTINGS = [
  "can_send_message_group",
  "can_administer_channel_group",
  "can_add_subscribers_group",
  "can_remove_subscribers_group",
  "can_subscribe_group",
  "can_move_messages_within_channel_group",
  "can_move_messages_out_of_channel_group",
  "can_resolve_topics_group",
  "can_delete_any_message_group",
  "can_delete_own_message_group",
] as const;

export type ChannelGroupSettingName = (typeof CHANNEL_GROUP_SETTINGS)[number];

export interface UserGroup {
  id: number;
  name: string;
  description: string;
  members: number[];
  direct_subgroup_ids: number[];
  is_system_group: boolean;
  deactivated?: boolean;
}

export interface NarrowTerm {
  operator: string;
  operand: string | number | number[];
  negated?: boolean;
}

export type Narrow = NarrowTerm[];

/** Topic visibility policies (user_topics). */
export const VISIBILITY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;
