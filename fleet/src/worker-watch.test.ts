import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SETTLE_MS, watchWorkerSources } from "./worker-watch.ts";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Waits until `done()` or `ms` pass, then twice the watcher's settle time for a late callback. */
async function settle(done: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await sleep(50);
  await sleep(2 * SETTLE_MS);
}

describe("watchWorkerSources", () => {
  let root: string;
  let stop = () => {};
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "worker-watch-"));
    for (const dir of ["src", "dist", "guest/deep"]) mkdirSync(join(root, dir), { recursive: true });
    for (const file of ["src/index.ts", "dist/x.guest.js", "guest/deep/g.ts"])
      writeFileSync(join(root, file), "1");
    writeFileSync(
      join(root, "wrangler.jsonc"),
      '{ "name": "w", "main": "src/index.ts", "build": { "watch_dir": "guest" } }',
    );
  });
  afterEach(() => {
    stop();
    rmSync(root, { recursive: true, force: true });
  });

  it("calls back once per burst of changes to an input's folder or the custom build's watch_dir, not for built output", async () => {
    let calls = 0;
    const bundle = {
      dir: join(root, "out"),
      inputs: [join(root, "src/index.ts"), join(root, "dist/x.guest.js")],
    };
    stop = watchWorkerSources(bundle, () => calls++, join(root, "wrangler.jsonc"));
    writeFileSync(join(root, "dist/x.guest.js"), "2");
    await settle(() => calls > 0, 1000);
    expect(calls).toBe(0);
    for (let i = 0; i < 5; i++) writeFileSync(join(root, "src/index.ts"), String(i));
    await settle(() => calls > 0);
    expect(calls).toBe(1);
    writeFileSync(join(root, "guest/deep/g.ts"), "2");
    await settle(() => calls > 1);
    expect(calls).toBe(2);
    stop();
    writeFileSync(join(root, "src/index.ts"), "after");
    await settle(() => calls > 2, 1000);
    expect(calls).toBe(2);
  }, 20_000);
});
