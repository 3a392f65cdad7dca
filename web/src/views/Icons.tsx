// Small inline SVG icons for the interface (no icon font, no emoji glyphs that a machine may
// lack). Decorative: each is aria-hidden; the control around it carries the name.

const base = { width: 16, height: 16, viewBox: "0 0 16 16", fill: "none", stroke: "currentColor", "stroke-width": 1.6, "stroke-linecap": "round" as const, "stroke-linejoin": "round" as const, "aria-hidden": "true" as const, class: "icon" };

export const IconInbox = () => (
  <svg {...base}><path d="M2 9.5 3.8 3h8.4L14 9.5V13H2z" /><path d="M2 9.5h3.5l1 1.5h3l1-1.5H14" /></svg>
);
export const IconChat = () => (
  <svg {...base}><path d="M2.5 3h11v7.5H7L4 13v-2.5H2.5z" /></svg>
);
export const IconAt = () => (
  <svg {...base}><circle cx="8" cy="8" r="2.6" /><path d="M10.6 8v1.2a1.7 1.7 0 0 0 3.4 0V8A6 6 0 1 0 11 13.2" /></svg>
);
export const IconStar = ({ filled = false }: { filled?: boolean }) => (
  <svg {...base} fill={filled ? "currentColor" : "none"}><path d="m8 1.8 1.9 4 4.3.5-3.2 2.9.9 4.3L8 11.3l-3.9 2.2.9-4.3-3.2-2.9 4.3-.5z" /></svg>
);
export const IconLock = () => (
  <svg {...base} width={12} height={12}><rect x="3" y="7" width="10" height="7" rx="1.5" /><path d="M5.5 7V5a2.5 2.5 0 0 1 5 0v2" /></svg>
);
export const IconHash = () => (
  <svg {...base} width={12} height={12}><path d="M6 2 4.5 14M11.5 2 10 14M2.5 5.5h11.5M2 10.5h11.5" /></svg>
);
export const IconPin = () => (
  <svg {...base} width={12} height={12}><path d="M6 2h4l-.5 4 2.5 2.5H4L6.5 6zM8 8.5V14" /></svg>
);
export const IconClip = () => (
  <svg {...base}><path d="m13 7.5-5.3 5.3a3.2 3.2 0 0 1-4.5-4.5L8.8 2.7a2.1 2.1 0 0 1 3 3L6.3 11.2a1 1 0 0 1-1.5-1.5l5-5" /></svg>
);
export const IconEye = () => (
  <svg {...base}><path d="M1.5 8S4 3.5 8 3.5 14.5 8 14.5 8 12 12.5 8 12.5 1.5 8 1.5 8z" /><circle cx="8" cy="8" r="2" /></svg>
);
export const IconSmile = () => (
  <svg {...base}><circle cx="8" cy="8" r="6" /><path d="M5.5 9.5a3 3 0 0 0 5 0M6 6.3v.2M10 6.3v.2" /></svg>
);
export const IconDots = () => (
  <svg {...base} fill="currentColor" stroke="none"><circle cx="3.5" cy="8" r="1.3" /><circle cx="8" cy="8" r="1.3" /><circle cx="12.5" cy="8" r="1.3" /></svg>
);
export const IconMenu = () => (
  <svg {...base} width={20} height={20}><path d="M2.5 4h11M2.5 8h11M2.5 12h11" /></svg>
);
export const IconMail = () => (
  <svg {...base} width={13} height={13}><rect x="1.5" y="3" width="13" height="10" rx="1.5" /><path d="m2 4 6 4.5L14 4" /></svg>
);
export const IconLogo = () => (
  <svg width={22} height={22} viewBox="0 0 24 24" aria-hidden="true" class="logo"><rect width="24" height="24" rx="6" fill="#4f6df5" /><path d="M6 7h12v8h-7l-4 3v-3H6z" fill="#fff" /></svg>
);
export const IconGear = () => (
  <svg {...base}><circle cx="8" cy="8" r="2.2" /><path d="M8 1.5v1.7M8 12.8v1.7M1.5 8h1.7M12.8 8h1.7M3.4 3.4l1.2 1.2M11.4 11.4l1.2 1.2M3.4 12.6l1.2-1.2M11.4 4.6l1.2-1.2" /></svg>
);
