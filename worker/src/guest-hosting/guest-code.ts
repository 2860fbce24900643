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
/**
 * The shell guest's flags: Node's modules as every guest has them, but the global `process` of
 * before process v2 and the platform's own timers. At this compatibility date workerd evaluates
 * process v2's modules (an EventEmitter, with Node's events module) and Node's timers in every
 * new isolate before the guest's code runs; the older `process` is only built when first read,
 * and the guest's build keeps just-bash's start from reading it (lazy-guest-modules.ts). just-bash
 * needs neither (no `process.on`, no timer it unrefs); `process.getBuiltinModule`, which loads
 * node:zlib and node:async_hooks at their first use, is the same. The js guest keeps Node's: its
 * code is the user's. docs/BENCH.md, "Shell cold start, third round".
 */
export const SHELL_GUEST_COMPATIBILITY_FLAGS = [
  "nodejs_compat",
  "disable_nodejs_process_v2",
  "no_nodejs_global_timers",
];

/** The shell guest's module source (entrypoint `ShellGuest`). */
export const SHELL_GUEST = shellGuestSource;
/** The js guest's runtime module source (entrypoint `JsGuest`). */
export const JS_GUEST = jsGuestSource;

/** The html-to-markdown converter's module source (entrypoint `TurndownGuest`). */
export const TURNDOWN_GUEST = turndownGuestSource;

let shellVersion: string | undefined;
let turndownVersion: string | undefined;

/** A short hash of the shell bundle and its flags: a new build never reuses an old loader cache entry. */
export function shellGuestVersion(): string {
  shellVersion ??= createHash("sha256")
    .update(SHELL_GUEST)
    .update(`\0${SHELL_GUEST_COMPATIBILITY_FLAGS.join(",")}`)
    .digest("hex")
    .slice(0, 16);
  return shellVersion;
}

/** A short hash of the converter's bundle, for its loader ids. */
export function turndownGuestVersion(): string {
  turndownVersion ??= createHash("sha256").update(TURNDOWN_GUEST).digest("hex").slice(0, 16);
  return turndownVersion;
}
