/**
 * Test helper: random sequences of the requests that add, move and remove names (creates,
 * mkdir, mknod, symlinks, links, renames, exchanges, unlink, rmdir, lookups) and of remote
 * changes, in /, /d and /d/a, run through a test listener — for the property tests of the
 * names the FUSE loop holds (fuse3-loop-names.test.ts, fuse3-loop-entries.test.ts), which
 * check the loop's tables after every step.
 */
import fc from "fast-check";
import type { Mirror } from "../src/mirror/open-mirror.ts";
import { OP } from "../src/mount/fuse3-native.ts";
import { ROOT_INO } from "../src/mount/fuse3-nodes.ts";
import type { LocalFs } from "../src/mount/local-fs.ts";
import type { Call } from "./mount-harness.ts";

const ROOT = { uid: 0, gid: 0 };
const O_RDWR = 2;
const S_IFIFO = 0o010000;
const RENAME_EXCHANGE = 2;

/** What a step runs on: a listener's Call, its LocalFs and the mirror under it. */
export interface StepTarget {
  readonly call: Call;
  readonly fs: LocalFs;
  readonly mirror: Mirror;
}

type Where = "/" | "/d" | "/d/a";

/** One request (or remote change) of a sequence. */
export type RequestStep =
  | {
      op: "create" | "mkdir" | "mknod" | "symlink" | "unlink" | "rmdir" | "lookup";
      where: Where;
      name: string;
    }
  | { op: "rename"; where: Where; name: string; to: Where; toName: string; exchange: boolean }
  | { op: "link"; where: Where; name: string; to: Where; toName: string }
  | { op: "remote"; where: Where; name: string; kind: "file" | "dir" | "remove" };

/** Sequences of up to 30 steps over `names` (the tree starts with /d and /d/f). */
export function requestSteps(names: readonly string[]): fc.Arbitrary<RequestStep[]> {
  const name = fc.constantFrom(...names);
  const where = fc.constantFrom<Where>("/", "/d", "/d/a");
  const step: fc.Arbitrary<RequestStep> = fc.oneof(
    fc.record({
      op: fc.constantFrom("create" as const, "mkdir" as const, "mknod" as const, "symlink" as const),
      where,
      name,
    }),
    fc.record({ op: fc.constantFrom("unlink" as const, "rmdir" as const, "lookup" as const), where, name }),
    fc.record({
      op: fc.constant("rename" as const),
      where,
      name,
      to: where,
      toName: name,
      exchange: fc.boolean(),
    }),
    fc.record({ op: fc.constant("link" as const), where, name, to: where, toName: name }),
    fc.record({
      op: fc.constant("remote" as const),
      where,
      name,
      kind: fc.constantFrom("file", "dir", "remove"),
    }),
  );
  return fc.array(step, { maxLength: 30 });
}

/** The inode a lookup of `name` in `parent` answers (0: none). */
export function lookupIno(t: StepTarget, parent: number, name: string): number {
  return t.call(OP.lookup, ROOT, parent, name).ino ?? 0;
}

/** Runs `steps` through `t`, calling `check` after each one that could run (its directory exists). */
export function runRequestSteps(t: StepTarget, steps: readonly RequestStep[], check: () => void): void {
  const dir = (where: Where): number => {
    if (where === "/") return ROOT_INO;
    const d = lookupIno(t, ROOT_INO, "d");
    return where === "/d" || d === 0 ? d : lookupIno(t, d, "a");
  };
  for (const s of steps) {
    const parent = dir(s.where);
    if (parent === 0) continue;
    runStep(t, s, parent, dir);
    check();
  }
}

function runStep(t: StepTarget, s: RequestStep, parent: number, dir: (where: Where) => number): void {
  switch (s.op) {
    case "create":
      t.call(OP.create, ROOT, parent, 0o644, O_RDWR, s.name);
      return;
    case "mkdir":
      t.call(OP.mkdir, ROOT, parent, 0o755, s.name);
      return;
    case "mknod":
      t.call(OP.mknod, ROOT, parent, S_IFIFO | 0o644, 0, s.name);
      return;
    case "symlink":
      t.call(OP.symlink, ROOT, parent, s.name, "target");
      return;
    case "unlink":
    case "rmdir":
      t.call(s.op === "unlink" ? OP.unlink : OP.rmdir, ROOT, parent, s.name);
      return;
    case "lookup":
      lookupIno(t, parent, s.name);
      return;
    case "rename": {
      const to = dir(s.to);
      if (to !== 0) t.call(OP.rename, ROOT, parent, to, s.exchange ? RENAME_EXCHANGE : 0, s.name, s.toName);
      return;
    }
    case "link": {
      const ino = lookupIno(t, parent, s.name);
      const to = dir(s.to);
      if (ino !== 0 && to !== 0) t.call(OP.link, ROOT, ino, to, s.toName);
      return;
    }
    case "remote": {
      const path = `${s.where === "/" ? "" : s.where}/${s.name}`;
      t.fs.flushAll();
      try {
        if (s.kind === "dir") t.mirror.vfs.mkdir(path);
        else if (s.kind === "file") t.mirror.vfs.writeFile(path, "remote");
        else t.mirror.vfs.rm(path, { recursive: true });
      } catch {
        return;
      }
      t.fs.invalidate([path]);
      return;
    }
    default:
      s satisfies never;
  }
}
