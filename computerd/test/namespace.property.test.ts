/**
 * Property: any sequence of namespace operations — many of them refused (ENOTEMPTY, EISDIR,
 * ENOTDIR, EINVAL, EEXIST, ENOENT) — run back to back on the fuse3 mount and on tmpfs gives
 * each operation the same outcome and leaves the same observable tree after every step:
 * names, types, link counts, sizes, contents, symlink targets and what open descriptors
 * read. No pauses: a failed operation must not leave anything in the daemon's tables or the
 * kernel's caches that a later one trips over. The daemon runs as a child process; this
 * process only makes syscalls on the mount.
 */

import * as nodeFs from "node:fs";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canRun, missingFuse } from "@computer/fleet/capabilities";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Daemon, startDaemon } from "./daemon.ts";
import { fuse3Mountable } from "./mounted-mirror.ts";

/** Names the operations choose from: a small tree two levels deep, so they collide often. */
const PATHS = ["a", "b", "a/c", "b/c", "a/c/d", "b/d"];
/** What a run may start with (directories end in "/"), created parents first. */
const SEED = ["a/", "b/", "a/c/", "b/c/", "b/d", "a/c/d"];

type Op =
  | { kind: "mkdir" | "rmdir" | "unlink" | "open" | "close"; path: string }
  | { kind: "write"; path: string; text: string }
  | { kind: "rename" | "link"; from: string; to: string }
  | { kind: "symlink"; target: string; path: string };

const path = fc.constantFrom(...PATHS);
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constantFrom("mkdir", "rmdir", "unlink", "open", "close"), path }),
  fc.record({ kind: fc.constant("write"), path, text: fc.constantFrom("x", "yy", "") }),
  { arbitrary: fc.record({ kind: fc.constantFrom("rename", "link"), from: path, to: path }), weight: 3 },
  fc.record({ kind: fc.constant("symlink"), target: fc.constantFrom("a", "c", "../a"), path }),
);

/** One side of the comparison: a root directory and the descriptors left open in it. */
interface Side {
  root: string;
  open: { path: string; fd: number }[];
}

function outcome(run: () => void): string {
  try {
    run();
    return "ok";
  } catch (err) {
    return (err as NodeJS.ErrnoException).code ?? String(err);
  }
}

function apply(side: Side, step: Op): string {
  const at = (p: string) => join(side.root, p);
  switch (step.kind) {
    case "mkdir":
      return outcome(() => nodeFs.mkdirSync(at(step.path)));
    case "rmdir":
      return outcome(() => nodeFs.rmdirSync(at(step.path)));
    case "unlink":
      return outcome(() => nodeFs.unlinkSync(at(step.path)));
    case "write":
      return outcome(() => nodeFs.writeFileSync(at(step.path), step.text));
    case "rename":
      return outcome(() => nodeFs.renameSync(at(step.from), at(step.to)));
    case "link":
      return outcome(() => nodeFs.linkSync(at(step.from), at(step.to)));
    case "symlink":
      return outcome(() => nodeFs.symlinkSync(step.target, at(step.path)));
    case "open":
      return outcome(() => {
        const fd = nodeFs.openSync(at(step.path), "r");
        side.open.push({ path: step.path, fd });
      });
    case "close": {
      const open = side.open.shift();
      if (open) nodeFs.closeSync(open.fd);
      return "ok";
    }
    default:
      return step satisfies never;
  }
}

/** Everything a program can see of the tree below the root, and through each open descriptor. */
function observe(side: Side): string[] {
  const lines: string[] = [];
  const walk = (rel: string) => {
    for (const name of nodeFs.readdirSync(join(side.root, rel)).sort()) {
      const child = rel === "" ? name : `${rel}/${name}`;
      const full = join(side.root, child);
      const st = nodeFs.lstatSync(full);
      if (st.isDirectory()) {
        lines.push(`${child}/ nlink=${st.nlink}`);
        walk(child);
      } else if (st.isSymbolicLink()) lines.push(`${child} -> ${nodeFs.readlinkSync(full)}`);
      else lines.push(`${child} nlink=${st.nlink} size=${st.size} ${nodeFs.readFileSync(full, "utf8")}`);
    }
  };
  walk("");
  for (const { path: opened, fd } of side.open) {
    const st = nodeFs.fstatSync(fd);
    const text = st.isDirectory() ? "(dir)" : nodeFs.readFileSync(fd, "utf8");
    lines.push(`fd ${opened}: nlink=${st.nlink} ${text}`);
  }
  return lines;
}

function closeAll(side: Side): void {
  for (const { fd } of side.open.splice(0)) nodeFs.closeSync(fd);
}

const hasFuse = canRun("namespace operations on the fuse3 mount", missingFuse());

describe.skipIf(!hasFuse || !fuse3Mountable)("namespace operations on the fuse3 mount match tmpfs", () => {
  let root: string;
  let reference: string;
  let mountPoint: string;
  let daemon: Daemon;
  let run = 0;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), "computerd-namespace-"));
    const shm = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
    reference = mkdtempSync(join(shm, "computerd-namespace-reference-"));
    mountPoint = join(root, "mnt");
    daemon = await startDaemon(join(root, "state"), mountPoint, ["--backend", "fuse3"]);
  });

  afterAll(async () => {
    await daemon?.stop();
    rmSync(reference, { recursive: true, force: true });
    rmSync(root, { recursive: true, force: true });
  });

  it("gives every operation the same outcome and leaves the same tree after each, with no pauses", () => {
    fc.assert(
      fc.property(fc.subarray(SEED), fc.array(op, { minLength: 1, maxLength: 30 }), (seed, ops) => {
        // Each run in a fresh subdirectory of both roots: paths never start at the mount's root.
        run++;
        const mount: Side = { root: join(mountPoint, `run-${run}`), open: [] };
        const tmpfs: Side = { root: join(reference, `run-${run}`), open: [] };
        nodeFs.mkdirSync(mount.root);
        nodeFs.mkdirSync(tmpfs.root);
        try {
          for (const entry of seed) {
            const step: Op = entry.endsWith("/")
              ? { kind: "mkdir", path: entry.slice(0, -1) }
              : { kind: "write", path: entry, text: entry };
            expect(apply(mount, step)).toBe(apply(tmpfs, step));
          }
          for (const [i, step] of ops.entries()) {
            const expected = apply(tmpfs, step);
            const actual = apply(mount, step);
            expect({ i, step, outcome: actual }).toEqual({ i, step, outcome: expected });
            expect({ i, step, tree: observe(mount) }).toEqual({ i, step, tree: observe(tmpfs) });
          }
        } finally {
          closeAll(mount);
          closeAll(tmpfs);
        }
      }),
      { numRuns: 150 },
    );
    expect(daemon.stderr()).not.toContain("replying EIO");
  });
});
