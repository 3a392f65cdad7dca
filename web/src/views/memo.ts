// A component that renders again only when one of its props changed (shallow compare).
// preact/compat has `memo`, but importing compat also installs its React-compatibility
// hooks on every element Preact creates, which cost a tenth of the first page's render.

import { h, type Component, type FunctionComponent } from "preact";

export function memo<P extends object>(inner: FunctionComponent<P>): FunctionComponent<P> {
  function shouldComponentUpdate(this: Component<P>, next: P): boolean {
    const now = this.props as Record<string, unknown>;
    const later = next as Record<string, unknown>;
    for (const key in now) if (key !== "children" && !(key in later)) return true;
    for (const key in later) if (key !== "children" && now[key] !== later[key]) return true;
    return false;
  }
  function Memo(this: Component<P>, props: P) {
    this.shouldComponentUpdate = shouldComponentUpdate;
    return h(inner, props);
  }
  Memo.displayName = `Memo(${inner.displayName ?? inner.name})`;
  return Memo;
}
