import { useState } from "preact/hooks";
import { colorFor, initials } from "../format";

/**
 * A person's picture, or their initials when it does not load (no broken images). Decorative
 * beside the person's name, unless given a `label`.
 */
export function Avatar({ url, name, id, size = 36, label }: { url: string | null | undefined; name: string; id: number; size?: number; label?: string }) {
  // The URL that failed to load: a new URL (a new avatar) gets its chance.
  const [failedUrl, setFailedUrl] = useState<string | undefined>();
  const failed = !!url && failedUrl === url;
  const style = { width: `${size}px`, height: `${size}px` };
  if (!url || failed) {
    return (
      <span class="avatar avatar-initials" style={{ ...style, background: colorFor(id), fontSize: `${Math.round(size * 0.4)}px` }} {...(label ? { role: "img", "aria-label": label } : { "aria-hidden": "true" })}>
        {initials(name)}
      </span>
    );
  }
  return <img class="avatar" src={url} alt={label ?? ""} style={style} onError={() => setFailedUrl(url)} loading="lazy" />;
}
