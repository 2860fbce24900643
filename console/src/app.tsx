/**
 * The console's shell: sign-in, then the computers the token may see, then one computer.
 * The location hash is the route (`#/` the list, `#/c/<id>` a computer), so a reload or a
 * shared link lands on the same page.
 */
import { isComputerId } from "@computer/sdk/computer-id";
import { useEffect, useState } from "preact/hooks";
import { ComputerList } from "./computer-list.tsx";
import { ComputerView } from "./computer-view.tsx";
import { type Session, savedToken, saveToken, sessionFor } from "./session.ts";
import { SignIn } from "./sign-in.tsx";

function routeOf(hash: string): { computer: string | undefined } {
  const id = /^#\/c\/([^/?#]+)/.exec(hash)?.[1];
  return { computer: id !== undefined && isComputerId(id) ? id : undefined };
}

export function App() {
  const [session, setSession] = useState<Session | undefined>(() => {
    const token = savedToken();
    return token === undefined ? undefined : sessionFor(token);
  });
  const [route, setRoute] = useState(() => routeOf(location.hash));
  useEffect(() => {
    const onHash = () => setRoute(routeOf(location.hash));
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);

  if (session === undefined) {
    return (
      <SignIn
        onSignedIn={(s) => {
          saveToken(s.token);
          setSession(s);
          if (s.computer !== undefined) location.hash = `#/c/${s.computer}`;
        }}
      />
    );
  }
  const signOut = () => {
    saveToken(undefined);
    setSession(undefined);
    location.hash = "";
  };
  const computer = route.computer ?? session.computer;
  return (
    <div class="shell">
      <header class="topbar">
        <a class="brand" href="#/">
          <span class="logo" aria-hidden="true" />
          Computer
        </a>
        {computer !== undefined && (
          <nav class="crumbs">
            <span class="sep">/</span>
            <span class="crumb" data-testid="current-computer">
              {computer}
            </span>
          </nav>
        )}
        <div class="spacer" />
        <span class={`badge scope-${session.scope}`}>
          {session.scope === "admin" ? "admin" : `token · ${session.scope}`}
        </span>
        <button type="button" class="ghost" onClick={signOut}>
          Sign out
        </button>
      </header>
      <main class="content">
        {computer === undefined ? (
          <ComputerList session={session} />
        ) : (
          <ComputerView session={session} id={computer} key={computer} />
        )}
      </main>
    </div>
  );
}
