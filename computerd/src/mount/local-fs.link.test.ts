/**
 * Hard links of files with buffered writes (store-paths.ts): a link stores nothing, the bytes are
 * stored later under the new name with the last write's mtime and the link's ctime, and a name
 * goes only after the bytes to be stored under it are stored.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestLocalFs } from "../../test/mount-harness.ts";
import type { Mirror } from "../mirror/open-mirror.ts";
import type { LocalFs } from "./local-fs.ts";

const enc = new TextEncoder();

let mirror: Mirror;
let fs: LocalFs;
let close: () => void;

beforeEach(() => {
  ({ mirror, fs, close } = openTestLocalFs("computerd-localfs-link-"));
});

afterEach(() => close());

function writeNew(path: string, text: string): number {
  const { fh } = fs.create(path, 0o644);
  fs.write(fh, path, enc.encode(text), 0);
  return fh;
}

const times = (path: string) => {
  const { mtime, ctime, size, nlink } = fs.stat(path);
  return { mtime, ctime, size, nlink };
};

describe("a hard link of a file with buffered writes", () => {
  it("stores nothing at git's link and unlink; the bytes go later under the new name, with the link's ctime", () => {
    fs.mkdir("/objects", 0o755);
    const files = Array.from({ length: 20 }, (_, i) => ({ tmp: `/tmp_obj_${i}`, name: `/objects/${i}` }));
    const handles = files.map(({ tmp }, i) => writeNew(tmp, `object ${i}\n`));
    const written = files.map(({ tmp }) => fs.stat(tmp).mtime);
    const operations = mirror.sql.counters.operations;
    const shown = files.map(({ tmp, name }) => {
      fs.link(tmp, name);
      fs.unlink(tmp);
      return times(name);
    });
    // One vfs operation each for the link and the unlink: no store of the file between them.
    expect(mirror.sql.counters.operations - operations).toBe(2 * files.length);
    shown.forEach((stat, i) => {
      expect(stat.mtime).toEqual(written[i]);
      expect(stat.nlink).toBe(1);
    });
    for (const fh of handles) fs.release(fh);
    fs.flushAll();
    files.forEach(({ tmp, name }, i) => {
      expect(fs.lookup(tmp)).toBeUndefined();
      expect(mirror.vfs.readText(name)).toBe(`object ${i}\n`);
      // What stat showed before the store is what the store left (ctime the link's, not moved back).
      expect(times(name)).toEqual(shown[i]);
      const stored = mirror.vfs.stat(name);
      expect({ mtime: stored.mtime, ctime: stored.ctime }).toEqual({
        mtime: shown[i]?.mtime,
        ctime: shown[i]?.ctime,
      });
    });
  });

  it("stores the bytes before the name they are to be stored under goes, whichever name that is", () => {
    const a = writeNew("/a", "first\n");
    fs.link("/a", "/b");
    // The bytes are to be stored under /b now: removing it stores them first, /a keeps them.
    fs.unlink("/b");
    fs.release(a);
    fs.flushAll();
    expect(mirror.vfs.readText("/a")).toBe("first\n");

    const c = writeNew("/c", "second\n");
    fs.link("/c", "/d");
    fs.rename("/d", "/e");
    fs.unlink("/c");
    fs.release(c);
    fs.flushAll();
    expect(mirror.vfs.readText("/e")).toBe("second\n");
    expect(times("/e").nlink).toBe(1);
  });
});
