/**
 * The names the FUSE loop holds to answer lookups of names found (fuse3-loop-entries.ts): after
 * any sequence of requests — creates, mkdir, mknod, symlinks, links, renames, exchanges,
 * removals, lookups, remote changes — every name the loop holds names the inode it holds it
 * with in the mirror, so a lookup it answers is one the listener would answer; and a lookup the
 * loop answered counts for the kernel's forget. The loop is modelled by its hooks.
 */
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileInDir, openTestHandlers, type TestHandlers } from "../../test/mount-harness.ts";
import { requestSteps, runRequestSteps } from "../../test/request-steps.ts";
import { OP } from "./fuse3-native.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";

const ROOT = { uid: 0, gid: 0 };
const O_RDWR = 2;

let t: TestHandlers;
/** The loop's names as its hooks left them: "parent/name" → inode. */
let held: Map<string, number>;

function open(): void {
  held = new Map();
  t = openTestHandlers("computerd-fuse3-loopentries-", {
    setup: fileInDir,
    kernel: {
      putEntry: (parent, name, ino) => held.set(`${parent}/${name}`, ino),
      dropEntry: (parent, name) => held.delete(`${parent}/${name}`),
      clearEntries: () => held.clear(),
    },
  });
}

beforeEach(open);
afterEach(() => t.close());

/** Every name the loop holds is, in the mirror, a name of the inode it holds it with. */
function expectExact(): void {
  for (const [key, ino] of held) {
    const at = key.indexOf("/");
    const [parent, name] = [Number(key.slice(0, at)), key.slice(at + 1)];
    const [dir] = t.mirror.vfs.namesOf(parent);
    expect(dir, `directory #${parent} of ${name}`).toBeDefined();
    expect(t.mirror.vfs.namesOf(ino), key).toContain(dir === "/" ? `/${name}` : `${dir}/${name}`);
  }
}

const lookup = (parent: number, name: string) => t.call(OP.lookup, ROOT, parent, name).ino ?? 0;

describe("the FUSE loop's names found", () => {
  it("holds each name answered with an entry, and drops it before a request removes or replaces it", () => {
    const d = lookup(ROOT_INO, "d");
    const f = lookup(d, "f");
    expect([...held]).toEqual([
      [`${ROOT_INO}/d`, d],
      [`${d}/f`, f],
    ]);
    const sub = t.call(OP.mkdir, ROOT, d, 0o755, "sub").ino ?? 0;
    const g = t.call(OP.create, ROOT, d, 0o644, O_RDWR, "g").ino ?? 0;
    t.call(OP.link, ROOT, f, d, "hard");
    expect(held.get(`${d}/sub`)).toBe(sub);
    expect(held.get(`${d}/g`)).toBe(g);
    expect(held.get(`${d}/hard`)).toBe(f);
    t.call(OP.rename, ROOT, d, d, 0, "g", "f");
    expect(held.has(`${d}/g`) || held.has(`${d}/f`)).toBe(false);
    t.call(OP.unlink, ROOT, d, "hard");
    t.call(OP.rmdir, ROOT, d, "sub");
    expect(held.has(`${d}/hard`) || held.has(`${d}/sub`)).toBe(false);
    t.mirror.vfs.writeFile("/d/remote", "r");
    t.fs.invalidate(["/d/remote"]);
    expect(held.size).toBe(0);
  });

  it("counts a lookup the loop answered for the kernel's forget", () => {
    const d = lookup(ROOT_INO, "d");
    // The loop answered the same name again: handed over without a request, [parent, ino, name].
    t.listener(OP.lookup_found, null, 0, 0, 1, 0o022, ROOT_INO, d, "d");
    t.listener(OP.forget, null, 0, 0, 1, 0o022, d, 1);
    expect(t.nodes.pathOf(d)).toBe("/d");
    t.listener(OP.forget, null, 0, 0, 1, 0o022, d, 1);
    expect(t.nodes.has(d)).toBe(false);
  });

  // 100 runs, each over a fresh mirror: a few seconds on a loaded 2-core machine.
  it("holds no name the mirror does not have as held, after any sequence of requests", {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(requestSteps(["a", "b", "f"]), (steps) => {
        t.close();
        open();
        runRequestSteps(t, steps, expectExact);
      }),
      { numRuns: 80 },
    );
  });
});
