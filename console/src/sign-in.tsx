/** Sign in with a token: the admin token sees every computer, a computer token its own. */
import { useState } from "preact/hooks";
import { describeError, type Session, sessionFor } from "./session.ts";

export function SignIn({ onSignedIn }: { onSignedIn: (session: Session) => void }) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const session = sessionFor(token.trim());
    setBusy(true);
    setError(undefined);
    try {
      // A cheap call that proves the token: the computer's record, or the list for the admin.
      if (session.computer !== undefined) await session.client.computer(session.computer).info();
      else await session.client.computers.list({ limit: 1 });
      onSignedIn(session);
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="signin">
      <form class="card signin-card" onSubmit={submit}>
        <div class="brand big">
          <span class="logo" aria-hidden="true" />
          Computer
        </div>
        <p class="muted">
          Virtual computers for AI agents. Sign in with the admin token or a computer's token.
        </p>
        <label for="token">Token</label>
        <input
          id="token"
          name="token"
          type="password"
          autoComplete="off"
          placeholder="ct1.… or the admin token"
          value={token}
          onInput={(e) => setToken((e.target as HTMLInputElement).value)}
        />
        {error !== undefined && <p class="error">{error}</p>}
        <button type="submit" class="primary" disabled={busy || token.trim() === ""}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </div>
  );
}
