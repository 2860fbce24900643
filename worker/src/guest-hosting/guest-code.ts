/**
 * The code of the shell, js and html-to-markdown converter Dynamic Workers: the bundles of
 * worker/src/guest (built into dist/guests by scripts/build-guests.ts, imported as text), the
 * compatibility settings they run with, and content hashes that version the Worker Loader's
 * cache ids.
 */
import { createHash } from "node:crypto";
import jsGuestSource from "../../dist/guests/js.guest.js";
import shellGuestSource from "../../dist/guests/shell.guest.js";
import turndownGuestSource from "../../dist/guests/turndown.guest.js";

/** Compatibility date of every guest (the Worker's own). */
export const GUEST_COMPATIBILITY_DATE = "2026-11-01";
/** Flags of every guest: node:zlib (gzip), node:util, node:buffer and friends. */
export const GUEST_COMPATIBILITY_FLAGS = ["nodejs_compat"];

/** The shell guest's module source (entrypoint `ShellGuest`). */
export const SHELL_GUEST = shellGuestSource;
/** The js guest's runtime module source (entrypoint `JsGuest`). */
export const JS_GUEST = jsGuestSource;

/** The html-to-markdown converter's module source (entrypoint `TurndownGuest`). */
export const TURNDOWN_GUEST = turndownGuestSource;

let shellVersion: string | undefined;
let turndownVersion: string | undefined;

/** A short hash of the shell bundle: a new build never reuses an old loader cache entry. */
export function shellGuestVersion(): string {
  shellVersion ??= createHash("sha256").update(SHELL_GUEST).digest("hex").slice(0, 16);
  return shellVersion;
}

/** A short hash of the converter's bundle, for its loader ids. */
export function turndownGuestVersion(): string {
  turndownVersion ??= createHash("sha256").update(TURNDOWN_GUEST).digest("hex").slice(0, 16);
  return turndownVersion;
}
