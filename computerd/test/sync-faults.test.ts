/**
 * `computerd serve` (FUSE mount, real commands) against a stand-in DO when things break:
 * SIGKILL during a write storm, then a restart on the same state — every change of every exec
 * that returned `complete` is in the DO and both sides converge; the WebSocket dropped in the
 * middle of a push (the command is not run) and in the middle of an upload — reconnect and
 * converge; SIGTERM unmounts cleanly and exits 0. Skips when /dev/fuse is absent.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { canRun, missingFuse } from "@computer/fleet/capabilities";
import { sha256Hex } from "@computer/vfs/node";
import { afterEach, describe, expect, it } from "vitest";
import { clearStaleMount, fuseMountsAt } from "../src/mount/stale.ts";
import { type ServeProcess, startServe } from "./serve-process.ts";
import { FakeDo, type RunOutcome, tree } from "./stand-in-do.ts";

const hasFuse = canRun("computerd serve when things break", missingFuse());
const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(): Promise<{ fake: FakeDo; state: string; mnt: string }> {
  const dir = mkdtempSync(join(tmpdir(), "computerd-faults-"));
  const fake = new FakeDo();
  await fake.listen();
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => fake.close());
  return { fake, state: join(dir, "state"), mnt: join(dir, "mnt") };
}

async function serve(state: string, mnt: string): Promise<ServeProcess> {
  const daemon = await startServe(state, mnt);
  cleanups.push(async () => {
    await daemon.stop("SIGKILL");
    await clearStaleMount(mnt);
  });
  return daemon;
}

/** What the mount shows (read from this process, which is not the FUSE daemon), like tree(). */
function mountTree(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (dir: string, rel: string): void => {
    for (const name of readdirSync(dir)) {
      const path = `${rel}/${name}`;
      const full = join(dir, name);
      const st = statSync(full);
      if (st.isDirectory()) {
        out.set(path, "dir");
        visit(full, path);
      } else out.set(path, `file ${sha256Hex(readFileSync(full))}`);
    }
  };
  visit(root, "");
  return out;
}

function expectComplete(outcome: RunOutcome): void {
  expect({ error: outcome.error, status: outcome.exit?.status }, outcome.output).toEqual({
    error: undefined,
    status: "completed",
  });
  expect(outcome.fence).toBeDefined();
}

/** Every path of `before` is in `after` with the same content. */
function expectKept(before: Map<string, string>, after: Map<string, string>): void {
  const lost = [...before].filter(([path, what]) => after.get(path) !== what).map(([path]) => path);
  expect(lost).toEqual([]);
}

const writeFiles = (dir: string, n: number) =>
  `mkdir -p ${dir} && i=0; while [ $i -lt ${n} ]; do echo "${dir} $i" > ${dir}/f$i; i=$((i+1)); done`;

describe.skipIf(!hasFuse)("computerd serve when things break", () => {
  it("SIGKILL during a write storm: after a restart every completed exec's changes are in the DO, and both sides converge", async () => {
    const { fake, state, mnt } = await setup();
    const first = await serve(state, mnt);
    await first.connect(fake);
    for (let n = 0; n < 4; n++) expectComplete(await fake.run(writeFiles(`done${n}`, 300)));
    const completed = tree(fake.vfs);
    expect([...completed.keys()].filter((p) => p.startsWith("/done"))).toHaveLength(4 * 301);

    const storm = fake.run(
      "mkdir -p storm && i=0; while [ $i -lt 100000 ]; do echo $i > storm/f$((i % 5000)); i=$((i+1)); done",
    );
    await expect.poll(() => fake.vfs.exists("/storm/f100"), { timeout: 20_000 }).toBe(true);
    expect(await first.stop("SIGKILL")).toBe(null);
    expect(await storm).toMatchObject({ error: "lost the link" });
    // Nothing the DO had is lost, whatever the storm did.
    expectKept(completed, tree(fake.vfs));

    const second = await serve(state, mnt);
    await second.connect(fake);
    const fence = await fake.fence();
    expect(fence.conflicts).toEqual([]);
    await fake.push();
    expectKept(completed, tree(fake.vfs));
    expect(mountTree(mnt)).toEqual(tree(fake.vfs));
    expect(await second.stop("SIGTERM")).toBe(0);
    expect(await fuseMountsAt(mnt)).toEqual([]);
  }, 120_000);

  it("a large file from the DO: the command starts before its bytes arrive, reads through the mount fetch them by hash, offline reads are EIO", async () => {
    const { fake, state, mnt } = await setup();
    const daemon = await serve(state, mnt);
    await daemon.connect(fake);
    const big = randomBytes(24 * 1024 * 1024 + 5);
    fake.vfs.writeFile("/big.bin", big);
    expectComplete(await fake.run("true"));
    expect(fake.fetched).toBe(0);
    // cp shares the chunks (copy_file_range), placeholders too: the copy reads the same bytes.
    const sum = await fake.run("cp big.bin copy.bin && sha256sum copy.bin big.bin");
    expectComplete(sum);
    expect(sum.output).toBe(`${sha256Hex(big)}  copy.bin\n${sha256Hex(big)}  big.bin\n`);
    expect(fake.fetched).toBe(25);
    expect(fake.vfs.readFile("/copy.bin")).toEqual(new Uint8Array(big));
    // Fetched once: a second read is the mirror's own.
    expectComplete(await fake.run("cat big.bin > /dev/null"));
    expect(fake.fetched).toBe(25);

    fake.vfs.writeFile("/offline.bin", randomBytes(8 * 1024 * 1024));
    await fake.push();
    fake.secret = "refused";
    fake.drop();
    await expect.poll(() => fake.connected, { timeout: 30_000 }).toBe(false);
    expect(() => readFileSync(join(mnt, "offline.bin"))).toThrow(/EIO/);
    expect(statSync(join(mnt, "offline.bin")).size).toBe(8 * 1024 * 1024);
  }, 120_000);

  it("WebSocket dropped mid-push: the command is not run; after reconnecting it runs and both sides converge", async () => {
    const { fake, state, mnt } = await setup();
    const daemon = await serve(state, mnt);
    await daemon.connect(fake);
    // Commands never hold the FUSE device (they could answer the mount's requests).
    const fds = await fake.run("ls -l /proc/self/fd/ | grep -c /dev/fuse || true");
    expectComplete(fds);
    expect(fds.output.trim()).toBe("0");
    fake.vfs.mkdir("/from-do");
    for (let i = 0; i < 1200; i++) fake.vfs.writeFile(`/from-do/f${i}`, `do ${i}\n`);
    fake.fault = { direction: "push", after: fake.pushes + 2 };
    const failed = await fake.run("touch ran-after-failed-push");
    expect(failed.error).toMatch(/^push failed/);
    await daemon.connect(fake);
    const outcome = await fake.run("ls from-do | wc -l && touch ran");
    expectComplete(outcome);
    expect(outcome.output.trim()).toBe("1200");
    expect(fake.vfs.exists("/ran")).toBe(true);
    expect(fake.vfs.exists("/ran-after-failed-push")).toBe(false);
    expect(mountTree(mnt)).toEqual(tree(fake.vfs));
  }, 120_000);

  it("WebSocket dropped mid-upload: the sync is pending; after reconnecting the fence completes it and both sides converge", async () => {
    const { fake, state, mnt } = await setup();
    const daemon = await serve(state, mnt);
    await daemon.connect(fake);
    expectComplete(await fake.run("true"));
    // The first upload of the command's files (a batch of up to 4,000 changes: they may all be
    // in it), while it runs or in its fence.
    fake.fault = { direction: "upload", after: fake.uploads + 1 };
    const broken = await fake.run(writeFiles("up", 2500));
    expect(broken.error).toMatch(/lost the link|fence failed/);
    await daemon.connect(fake);
    // The command goes on without the link; the DO fences again once it is done.
    await expect.poll(async () => (await fake.health()).running, { timeout: 60_000 }).toEqual([]);
    const fence = await fake.fence();
    expect(fence.conflicts).toEqual([]);
    expect([...tree(fake.vfs).keys()].filter((p) => p.startsWith("/up/"))).toHaveLength(2500);
    await fake.push();
    expect(mountTree(mnt)).toEqual(tree(fake.vfs));
  }, 120_000);
});
