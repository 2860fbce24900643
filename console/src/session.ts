/**
 * The signed-in session: the token (kept in this browser's localStorage until sign-out), the
 * SDK client over this origin, and what the token may see: every computer for the admin token,
 * its own computer for a computer token (whose id the token's claims name).
 */
import { ComputerClient } from "@computer/sdk";

const STORAGE_KEY = "computer.console.token";

/** A signed-in session. */
export interface Session {
  token: string;
  client: ComputerClient;
  /** The computer a computer token is for; undefined for the admin token. */
  computer: string | undefined;
  scope: "admin" | "rw" | "ro";
}

/** The claims a computer token carries (`ct1.<base64url JSON>.<signature>`), unverified. */
export function tokenClaims(token: string): { computer: string; scope: "rw" | "ro" } | undefined {
  if (!token.startsWith("ct1.")) return undefined;
  const payload = token.split(".")[1] ?? "";
  try {
    const json = atob(payload.replaceAll("-", "+").replaceAll("_", "/"));
    const claims = JSON.parse(json) as { c?: unknown; s?: unknown };
    if (typeof claims.c !== "string") return undefined;
    return { computer: claims.c, scope: claims.s === "ro" ? "ro" : "rw" };
  } catch {
    return undefined;
  }
}

/** A session for `token` on this origin (nothing is checked until the first call). */
export function sessionFor(token: string): Session {
  const claims = tokenClaims(token);
  return {
    token,
    client: new ComputerClient({ url: location.origin, token }),
    computer: claims?.computer,
    scope: claims?.scope ?? "admin",
  };
}

export function savedToken(): string | undefined {
  return localStorage.getItem(STORAGE_KEY) ?? undefined;
}

export function saveToken(token: string | undefined): void {
  if (token === undefined) localStorage.removeItem(STORAGE_KEY);
  else localStorage.setItem(STORAGE_KEY, token);
}

/** A one-line message for an error (the API's code first). */
export function describeError(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code === "string") return `${e.code}: ${String(e.message ?? "")}`;
  return err instanceof Error ? err.message : String(err);
}
