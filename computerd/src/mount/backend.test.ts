import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openMirror } from "../mirror/open-mirror.ts";
import { openMount } from "./backend.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('openMount({ backend: "none" })', () => {
  it("serves the mirror without a kernel mount: fence, change events, invalidation", async () => {
    const dir = mkdtempSync(join(tmpdir(), "computerd-none-"));
    dirs.push(dir);
    const mirror = openMirror(dir);
    const mount = await openMount({ backend: "none", mirror, log: () => {} });
    expect(mount.mountPoint).toBeUndefined();
    let changes = 0;
    mount.onChange(() => changes++);

    const { fh } = mount.fs.create("/f", 0o644);
    mount.fs.write(fh, "/f", new Uint8Array(3 << 20).fill(9), 0);
    mount.fs.release(fh);
    expect(mirror.vfs.stat("/f").size).toBe(0);
    await mount.flushAll();
    expect(mirror.vfs.stat("/f").size).toBe(3 << 20);
    expect(changes).toBeGreaterThan(0);
    const cursor = mirror.vfs.changes("0").changes.map((c) => c.path);
    expect(cursor).toContain("/f");

    expect(mount.fs.lookup("/g")).toBeUndefined();
    mirror.vfs.writeFile("/g", "pushed");
    expect(mount.fs.lookup("/g")).toBeUndefined();
    await mount.invalidate(["/g"]);
    expect(mount.fs.lookup("/g")?.size).toBe(6);

    await mount.unmount();
    mirror.close();
  });
});
