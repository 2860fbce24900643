/**
 * `computerd serve --spare [--network bwrap]`: a daemon started before any computer asks for it
 * (computerd host keeps one, host/spare-daemon.ts), so a computer's first exec does not wait for
 * Node to start and load computerd (~120 ms of CPU here). Until it is assigned it holds nothing
 * of any computer: its code is loaded (the FUSE addon included) and, with `--network bwrap`,
 * the port bridge of a fresh, empty network namespace runs (sandbox-network.ts). It prints
 * `{"event":"spare"}`, then reads one line on stdin — `{"args": [...serve options],
 * "env": {...}}` — and becomes that computer's daemon, as `computerd serve ARGS` with ENV would
 * be; stdin closing first ends it. It is never handed back: one spare, one computer.
 */
import { createInterface } from "node:readline";
import { SandboxNetwork } from "../exec/sandbox-network.ts";
import { loadFuse3 } from "../mount/fuse3-native.ts";

/** What a spare is given. */
export interface SpareAssignment {
  args: string[];
  env: Record<string, string>;
}

/** What the spare prepared, for `serve` to use. */
export interface SparePrepared {
  /** The pre-started bridge of an empty network namespace (`--network bwrap`). */
  network?: Promise<SandboxNetwork>;
}

function isAssignment(value: unknown): value is SpareAssignment {
  if (typeof value !== "object" || value === null) return false;
  const { args, env } = value as Record<string, unknown>;
  return (
    Array.isArray(args) &&
    args.every((arg) => typeof arg === "string") &&
    typeof env === "object" &&
    env !== null &&
    Object.values(env).every((v) => typeof v === "string")
  );
}

/** The first line of `input` as an assignment; undefined when it closes first. Throws on a malformed line. */
export function readAssignment(input: NodeJS.ReadableStream): Promise<SpareAssignment | undefined> {
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input });
    let done = false;
    lines.once("line", (line) => {
      done = true;
      lines.close();
      try {
        const value: unknown = JSON.parse(line);
        if (isAssignment(value)) resolve(value);
        else reject(new Error("the spare's assignment is not {args: string[], env: {...}}"));
      } catch (err) {
        reject(err);
      }
    });
    lines.once("close", () => {
      if (!done) resolve(undefined);
    });
  });
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
  await network?.catch(() => undefined);
  console.log(JSON.stringify({ event: "spare", pid: process.pid }));
  const assignment = await readAssignment(process.stdin);
  // Nothing more comes on stdin (the host keeps its end open): it must not keep the daemon alive.
  process.stdin.pause();
  (process.stdin as { unref?: () => void }).unref?.();
  if (assignment === undefined) {
    (await network?.catch(() => undefined))?.close();
    return undefined;
  }
  return { assignment, ...(network ? { prepared: { network } } : { prepared: {} }) };
}
