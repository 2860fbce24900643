/**
 * `computerd serve --spare [--network bwrap]`: a daemon started before any computer asks for it
 * (computerd host keeps one, host/spare-pool.ts), so a computer's first exec does not wait for
 * Node to start and load computerd (~120 ms of CPU here). Until it is assigned it holds nothing
 * of any computer: its code is loaded (the FUSE addon included), its commands' spawner runs
 * (a C program holding nothing yet), it has made one HTTP exchange with itself
 * (spare-rehearsal.ts) and synced two throwaway mirrors of its own both ways
 * (spare-sync-rehearsal.ts) and, with `--network bwrap`, a fresh, empty network namespace is
 * held for it (sandbox-network.ts; its port bridge starts with the first preview). It prints
 * `{"event":"spare"}`, then reads one line on stdin — `{"args": [...serve options], "env":
 * {...}}` — and becomes that computer's daemon, as `computerd serve ARGS` with ENV would
 * be; stdin closing first ends it. It is never handed back: one spare, one computer.
 */
import { isIPv6 } from "node:net";
import { createInterface } from "node:readline";
import { SandboxNetwork } from "../exec/sandbox-network.ts";
import { Spawner } from "../exec/spawner.ts";
import { loadFuse3 } from "../mount/fuse3-native.ts";
import { rehearseHttp } from "./spare-rehearsal.ts";
import { rehearseSync } from "./spare-sync-rehearsal.ts";

/** What a spare is given. */
export interface SpareAssignment {
  args: string[];
  env: Record<string, string>;
  /**
   * The computer's root (`--sandbox-root`) is still being mounted by the host: a second line,
   * `root-ready` (or `root-failed`), says when it may be used; until then the daemon opens its
   * mirror and mount, which need no root.
   */
  rootLater?: boolean;
}

/** What the spare prepared, for `serve` to use. */
export interface SparePrepared {
  /** The pre-started bridge of an empty network namespace (`--network bwrap`). */
  network?: Promise<SandboxNetwork>;
  /** Settles once the host mounted the computer's root (rejects when it could not). */
  rootReady?: Promise<void>;
  /**
   * The commands' spawner (spawner.ts), started here: a fork of the spare costs less than one of
   * the daemon it becomes, and it holds no descriptor of any computer's (its FUSE device least
   * of all: the mount is made later). Undefined when it could not start.
   */
  spawner?: Promise<Spawner | undefined>;
}

function isAssignment(value: unknown): value is SpareAssignment {
  if (typeof value !== "object" || value === null) return false;
  const { args, env, rootLater } = value as Record<string, unknown>;
  return (
    Array.isArray(args) &&
    args.every((arg) => typeof arg === "string") &&
    typeof env === "object" &&
    env !== null &&
    Object.values(env).every((v) => typeof v === "string") &&
    (rootLater === undefined || typeof rootLater === "boolean")
  );
}

/** Lines of `input`, one at a time; undefined once it closed. */
export function lineReader(input: NodeJS.ReadableStream): {
  next(): Promise<string | undefined>;
  close(): void;
} {
  const lines = createInterface({ input })[Symbol.asyncIterator]();
  return {
    next: async () => {
      const { value, done } = await lines.next();
      return done === true ? undefined : String(value);
    },
    close: () => void lines.return?.(),
  };
}

/** An assignment line; throws on anything else. */
export function parseAssignment(line: string): SpareAssignment {
  const value: unknown = JSON.parse(line);
  if (!isAssignment(value)) throw new Error("the spare's assignment is not {args: string[], env: {...}}");
  return value;
}

/** Settles with the host's word on the root: `root-ready` resolves, anything else (or the end) rejects. */
async function rootWord(lines: ReturnType<typeof lineReader>): Promise<void> {
  const word = await lines.next();
  if (word !== "root-ready")
    throw new Error(`the host could not mount the computer's root (${word ?? "no answer"})`);
}

/** Nothing more comes on stdin (the host keeps its end open): it must not keep the daemon alive. */
function releaseStdin(lines: ReturnType<typeof lineReader>): void {
  lines.close();
  process.stdin.pause();
  (process.stdin as { unref?: () => void }).unref?.();
}

/**
 * Prepares what no computer owns, says so, and waits for the assignment. Resolves with it (and
 * what was prepared), or undefined when stdin closed first (the host stopped).
 */
export async function waitAsSpare(
  args: readonly string[],
): Promise<{ assignment: SpareAssignment; prepared: SparePrepared } | undefined> {
  const log = (message: string) => console.error(`computerd: ${message}`);
  const network =
    args.includes("--network") && args[args.indexOf("--network") + 1] === "bwrap"
      ? SandboxNetwork.start({ isolation: "bwrap", log })
      : undefined;
  // Awaited by serve (which falls back to a bridge of its own); never an unhandled rejection.
  network?.catch(() => undefined);
  // The FUSE addon and the mount's modules: loaded here rather than on the first exec's path.
  loadFuse3();
  await import("../mount/fuse3-backend.ts");
  const spawner = Spawner.start().catch(() => undefined);
  // The first address check compiles V8's IPv6 pattern (~5–15 ms here): every HTTP request
  // and the dial-back make one, the host's health check and the DO's /connect first of all.
  isIPv6("::1");
  await rehearseHttp();
  await rehearseSync();
  await network?.catch(() => undefined);
  console.log(JSON.stringify({ event: "spare", pid: process.pid }));
  const lines = lineReader(process.stdin);
  const line = await lines.next();
  if (line === undefined) {
    releaseStdin(lines);
    (await network?.catch(() => undefined))?.close();
    (await spawner)?.close();
    return undefined;
  }
  const assignment = parseAssignment(line);
  const prepared: SparePrepared = network ? { network, spawner } : { spawner };
  if (assignment.rootLater === true) {
    prepared.rootReady = rootWord(lines).finally(() => releaseStdin(lines));
    prepared.rootReady.catch(() => undefined);
  } else releaseStdin(lines);
  return { assignment, prepared };
}
