import { useEffect, useState } from "preact/hooks";
import { ApiError, accountPost } from "../api";
import { accountGet, keyFromPath } from "../accounts";
import { IconLogo } from "./Icons";

interface Link {
  kind: "invitation" | "multiuse";
  email?: string;
  realm_name: string;
}

function message(err: unknown): string {
  return err instanceof ApiError ? err.message : String(err);
}

/**
 * The sign-up page of an invitation or confirmation link (/join/<key>/): for an email
 * invitation, name and password, then the new member is signed in and sent to the app;
 * for a reusable link, the address first, which is mailed a confirmation link.
 */
export function Join() {
  const key = keyFromPath("/join/");
  const [link, setLink] = useState<Link | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [fatal, setFatal] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const [email, setEmail] = useState("");
  const [fullName, setFullName] = useState("");
  const [password, setPassword] = useState("");

  useEffect(() => {
    document.title = "Sign up";
    accountGet(`/accounts/register/${encodeURIComponent(key)}/`)
      .then((d) => {
        setLink(d as unknown as Link);
        document.title = `Sign up · ${String(d.realm_name)}`;
      })
      .catch((err) => setFatal(message(err)));
  }, [key]);

  async function register(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await accountPost("/accounts/register/", { key, full_name: fullName, password });
      location.assign("/");
    } catch (err) {
      setError(message(err));
      setBusy(false);
    }
  }

  async function askToJoin(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await accountPost("/accounts/home/", { key, email });
      setSent(true);
    } catch (err) {
      setError(message(err));
    }
    setBusy(false);
  }

  return (
    <div class="login-page">
      <main class="login-card" aria-labelledby="join-title">
        <div class="login-logo">
          <IconLogo />
        </div>
        <h1 id="join-title">{link ? `Join ${link.realm_name}` : "Sign up"}</h1>
        {fatal && (
          <p class="login-error" role="alert">
            {fatal}
          </p>
        )}
        {link?.kind === "invitation" && (
          <form onSubmit={register} class="login-form">
            <label for="join-email">Email</label>
            <input id="join-email" type="email" value={link.email} readOnly />
            <label for="join-name">Full name</label>
            <input id="join-name" name="full_name" autocomplete="name" required value={fullName} onInput={(e) => setFullName(e.currentTarget.value)} />
            <label for="join-password">Password</label>
            <input id="join-password" type="password" name="password" autocomplete="new-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
            {error && (
              <p class="login-error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" class="button primary" disabled={busy}>
              Sign up
            </button>
          </form>
        )}
        {link?.kind === "multiuse" && !sent && (
          <form onSubmit={askToJoin} class="login-form">
            <label for="join-email">Email</label>
            <input id="join-email" type="email" name="email" autocomplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
            {error && (
              <p class="login-error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" class="button primary" disabled={busy}>
              Continue
            </button>
          </form>
        )}
        {sent && <p role="status">Check your email: we sent a link to {email} to finish signing up.</p>}
      </main>
    </div>
  );
}
