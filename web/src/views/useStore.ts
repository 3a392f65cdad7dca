import { useEffect, useState } from "preact/hooks";
import { getVersion, subscribe } from "../store";

/** Re-renders the component whenever the store changes. */
export function useStore(): number {
  const [v, setV] = useState(getVersion());
  useEffect(() => subscribe(() => setV(getVersion())), []);
  return v;
}
