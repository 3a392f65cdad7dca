import { useState } from "preact/hooks";
import { colorFor, initials } from "../format";

/** A person's picture, or their initials when it does not load (no broken images). */
export function Avatar({ url, name, id, size = 36 }: { url: string | null | undefined; name: string; id: number; size?: number }) {
  const [failed, setFailed] = useState(false);
  const style = { width: `${size}px`, height: `${size}px` };
  if (!url || failed) {
    return (
      <span class="avatar avatar-initials" style={{ ...style, background: colorFor(id), fontSize: `${Math.round(size * 0.4)}px` }} aria-hidden="true">
        {initials(name)}
      </span>
    );
  }
  return <img class="avatar" src={url} alt="" style={style} onError={() => setFailed(true)} loading="lazy" />;
}
