/**
 * The daemon's sync engine in process for its tests (computerd/src/sync/mirror-sync*.test.ts):
 * a workspace with mount backend "none" (writes made through the mount's LocalFs) and the
 * daemon's dial-back link to a stand-in DO, closed after each test.
 */
import { CHUNK_SIZE } from "@computer/vfs";
import type { BatchLimits } from "@computer/vfs/sync";
import { afterEach, expect } from "vitest";
import type { Config } from "../src/config.ts";
import { type Daemon, startDaemon } from "../src/server/daemon.ts";
import { openWorkspace, type Workspace } from "../src/sync/workspace.ts";
import { testConfig } from "./server-harness.ts";
import { FakeDo } from "./stand-in-do.ts";

export interface Running {
  config: Config;
  workspace: Workspace;
  daemon: Daemon;
  /** Pretends a command runs (the uploader streams, invalidations are soft). */
  busy: boolean;
  connect(): Promise<void>;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

export async function fakeDo(): Promise<FakeDo> {
  const fake = new FakeDo();
  await fake.listen();
  cleanups.push(() => fake.close());
  return fake;
}

/** `limits`: small batches by default, so a drop can land between two batches of one drain. */
export async function start(
  fake: FakeDo,
  overrides: Partial<Config> = {},
  limits: Partial<BatchLimits> = { maxChanges: 10 },
): Promise<Running> {
  const config = testConfig({ mountBackend: "none", uploadIntervalMs: 20, ...overrides });
  const running = { busy: false } as Running;
  const workspace = await openWorkspace(config, {
    limits,
    busy: () => running.busy,
    log: (message, err) => console.error(message, err),
  });
  const daemon = await startDaemon(config, {
    sync: workspace.sync,
    onLink: (link) => workspace.sync.onLink(link),
  });
  fake.secret = config.secret;
  let closed = false;
  Object.assign(running, {
    config,
    workspace,
    daemon,
    async connect() {
      const res = await fetch(`http://127.0.0.1:${daemon.port}/connect`, {
        method: "POST",
        headers: { authorization: `Bearer ${config.secret}`, "content-type": "application/json" },
        body: JSON.stringify({ base: fake.url }),
      });
      expect(res.status, await res.text()).toBe(200);
      await fake.session();
    },
    async close() {
      if (closed) return;
      closed = true;
      await workspace.uploader.stop();
      await daemon.close();
      await workspace.close();
    },
  });
  cleanups.push(() => running.close());
  return running;
}

/** Writes a file through the mount, leaving it open (its data buffered) unless `close`. */
export function writeThroughMount(running: Running, path: string, text: string, close = true): void {
  const fs = running.workspace.mount.fs;
  const O_WRONLY_TRUNC = 0o1001;
  const fh = fs.lookup(path) ? fs.open(path, O_WRONLY_TRUNC) : fs.create(path, 0o644).fh;
  fs.write(fh, path, new TextEncoder().encode(text), 0);
  if (close) {
    fs.flush(fh);
    fs.release(fh);
  }
}

/** Writes and closes a new file of `pages` whole chunks through the mount (page i filled with i + 1). */
export function writeChunks(running: Running, path: string, pages: number): void {
  const fs = running.workspace.mount.fs;
  const { fh } = fs.create(path, 0o644);
  for (let i = 0; i < pages; i++) fs.write(fh, path, new Uint8Array(CHUNK_SIZE).fill(i + 1), i * CHUNK_SIZE);
  fs.flush(fh);
  fs.release(fh);
}

export const decode = (data: Uint8Array) => new TextDecoder().decode(data);
