import { useEffect, useState } from "preact/hooks";
import { ApiError, accountPost } from "../api";
import { accountGet, keyFromPath } from "../accounts";
import { IconLogo } from "./Icons";

function message(err: unknown): string {
  return err instanceof ApiError ? err.message : String(err);
}

/**
 * "Forgot password" (/password/reset/): an address, and always the same answer; and the
 * mailed link (/password/reset/<token>/): a new password, then the person is signed in.
 */
export function PasswordReset() {
  const token = keyFromPath("/password/reset/");
  return token ? <SetPassword token={token} /> : <ForgotPassword />;
}

function ForgotPassword() {
  const [email, setEmail] = useState("");
  const [busy, setBusy] = useState(false);
  const [sent, setSent] = useState(false);
  const [error, setError] = useState<string | undefined>();
  useEffect(() => {
    document.title = "Forgot password";
  }, []);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await accountPost("/accounts/password/reset/", { email });
      setSent(true);
    } catch (err) {
      setError(message(err));
    }
    setBusy(false);
  }

  return (
    <div class="login-page">
      <main class="login-card" aria-labelledby="reset-title">
        <div class="login-logo">
          <IconLogo />
        </div>
        <h1 id="reset-title">Forgot password</h1>
        {sent ? (
          <p role="status">If {email} has an account here, we sent it a link to set a new password.</p>
        ) : (
          <form onSubmit={submit} class="login-form">
            <label for="reset-email">Email</label>
            <input id="reset-email" type="email" name="email" autocomplete="email" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />
            {error && (
              <p class="login-error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" class="button primary" disabled={busy}>
              Send a link
            </button>
          </form>
        )}
        <p>
          <a href="/login/">Back to log in</a>
        </p>
      </main>
    </div>
  );
}

function SetPassword({ token }: { token: string }) {
  const [email, setEmail] = useState<string | undefined>();
  const [fatal, setFatal] = useState<string | undefined>();
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  const path = `/accounts/password/reset/${encodeURIComponent(token)}/`;

  useEffect(() => {
    document.title = "Set a new password";
    accountGet(path)
      .then((d) => setEmail(String(d.email)))
      .catch((err) => setFatal(message(err)));
  }, [path]);

  async function submit(e: Event) {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await accountPost(path, { new_password: password });
      location.assign("/");
    } catch (err) {
      setError(message(err));
      setBusy(false);
    }
  }

  return (
    <div class="login-page">
      <main class="login-card" aria-labelledby="set-title">
        <div class="login-logo">
          <IconLogo />
        </div>
        <h1 id="set-title">Set a new password</h1>
        {fatal && (
          <p class="login-error" role="alert">
            {fatal}
          </p>
        )}
        {email && (
          <form onSubmit={submit} class="login-form">
            <label for="set-email">Email</label>
            <input id="set-email" type="email" autocomplete="username" value={email} readOnly />
            <label for="set-password">New password</label>
            <input id="set-password" type="password" name="new_password" autocomplete="new-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
            {error && (
              <p class="login-error" role="alert">
                {error}
              </p>
            )}
            <button type="submit" class="button primary" disabled={busy}>
              Set password
            </button>
          </form>
        )}
      </main>
    </div>
  );
}
