import { useEffect, useState } from "preact/hooks";
import { ApiError, accountPost } from "../api";
import { IconLogo } from "./Icons";

interface DevUsers {
  direct_admins: { email: string }[];
  direct_users: { email: string }[];
}

function afterLogin(): void {
  const next = new URLSearchParams(location.search).get("next");
  location.assign(next && next.startsWith("/") && !next.startsWith("//") ? next : "/");
}

/** The sign-in page (/login/): email and password, and in development one click per user. */
export function Login() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [dev, setDev] = useState<DevUsers | undefined>();
  const [realm, setRealm] = useState("");

  useEffect(() => {
    document.title = "Log in";
    fetch("/api/v1/dev_list_users", { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : undefined))
      .then((d) => d && d.result !== "error" && setDev(d))
      .catch(() => {});
    fetch("/api/v1/server_settings", { credentials: "same-origin" })
      .then((r) => (r.ok ? r.json() : undefined))
      .then((d) => {
        if (d?.realm_name) {
          setRealm(d.realm_name);
          document.title = `Log in · ${d.realm_name}`;
        }
      })
      .catch(() => {});
  }, []);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await accountPost("/accounts/login/", { username: email, password });
      afterLogin();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
      setBusy(false);
    }
  }

  async function devLogin(address: string) {
    setBusy(true);
    setError(undefined);
    try {
      await accountPost("/accounts/login/local/", { direct_email: address });
      afterLogin();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
      setBusy(false);
    }
  }

  return (
    <div class="login-page">
      <main class="login-card" aria-labelledby="login-title">
        <div class="login-logo">
          <IconLogo />
        </div>
        <h1 id="login-title">Log in{realm ? ` to ${realm}` : ""}</h1>
        <form onSubmit={submit} class="login-form">
          <label for="login-email">Email</label>
          <input id="login-email" type="email" name="username" autocomplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
          <label for="login-password">Password</label>
          <input id="login-password" type="password" name="password" autocomplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          {error && (
            <p class="login-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" class="button primary" disabled={busy}>
            Log in
          </button>
        </form>
        <p class="login-forgot">
          <a href="/password/reset/">Forgot your password?</a>
        </p>
        {dev && (
          <section class="dev-login" aria-labelledby="dev-login-title">
            <h2 id="dev-login-title">Development users</h2>
            {[
              ["Administrators", dev.direct_admins],
              ["Members", dev.direct_users],
            ].map(([label, list]) =>
              (list as { email: string }[]).length ? (
                <div key={label as string}>
                  <h3>{label as string}</h3>
                  <ul>
                    {(list as { email: string }[]).map((u) => (
                      <li key={u.email}>
                        <button type="button" class="button" disabled={busy} onClick={() => devLogin(u.email)}>
                          {u.email}
                        </button>
                      </li>
                    ))}
                  </ul>
                </div>
              ) : null,
            )}
          </section>
        )}
      </main>
    </div>
  );
}
