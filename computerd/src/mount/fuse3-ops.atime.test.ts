/**
 * The fuse3 handlers keep atime as relatime does: read, readdir and readlink requests
 * update it when due, and an open for reading drops the page cache exactly when its read
 * would be due (a cached read never reaches the daemon).
 */
import { fromMs, type Timespec } from "@computer/vfs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openTestLocalFs, testListener, unexpectedAddon } from "../../test/mount-harness.ts";
import type { Mirror } from "../mirror/open-mirror.ts";
import { type Fuse3Addon, OP, type RequestHandle } from "./fuse3-native.ts";
import { ROOT_INO } from "./fuse3-nodes.ts";
import type { LocalFs } from "./local-fs.ts";
import { atimeWriter } from "./relatime.ts";

const O_RDONLY = 0;
const O_WRONLY = 1;

/** The replies of one request: open's keep-cache flag, or the atime of an attribute reply. */
interface Reply {
  kind: string;
  keep?: boolean;
  fh?: number;
  atime?: Timespec;
}

let mirror: Mirror;
let fs: LocalFs;
let close: () => void;
let clock: Timespec;
let replies: Reply[];
let call: (op: number, ...args: (number | string)[]) => Reply;

function recordingAddon(): Fuse3Addon {
  const record = (reply: Reply) => {
    replies.push(reply);
    return 0;
  };
  const attrs = (kind: string, attr: Float64Array) =>
    record({ kind, atime: { sec: attr[8] ?? Number.NaN, nsec: attr[9] ?? Number.NaN } });
  return {
    ...unexpectedAddon(),
    replyErr: (_req, errno) => record({ kind: `err ${errno}` }),
    replyEntry: (_req, attr) => attrs("entry", attr),
    replyAttr: (_req, attr) => attrs("attr", attr),
    replyOpen: (_req, fh, keep) => record({ kind: "open", fh, keep }),
    replyBuf: () => record({ kind: "buf" }),
    replyReadlink: () => record({ kind: "readlink" }),
    replyDir: () => record({ kind: "dir" }),
  };
}

beforeEach(() => {
  clock = fromMs(Date.now());
  ({ mirror, fs, close } = openTestLocalFs("computerd-fuse3-atime-", (opened) => ({
    storeAtime: atimeWriter(opened),
    now: () => clock,
  })));
  replies = [];
  const listener = testListener(recordingAddon(), fs);
  call = (op, ...args) => {
    // The loop answers a releasedir itself and hands it over without a request (native/fuse3.c).
    listener(op, op === OP.releasedir ? null : ({} as RequestHandle), 0, 0, 1, 0o022, ...args);
    const reply = replies.at(-1);
    if (!reply) throw new Error("no reply");
    return reply;
  };
});

afterEach(() => close());

/** Writes through the mount's LocalFs (its cached listings stay right). */
function writeFile(path: string, text: string): void {
  const { fh } = fs.create(path, 0o644);
  fs.write(fh, path, new TextEncoder().encode(text), 0);
  fs.release(fh);
}

/**
 * The next access time: the vfs stamps mtime and ctime with the wall clock (whole
 * milliseconds), so the test clock is the wall clock too, in a millisecond after
 * everything stamped so far.
 */
function later(): Timespec {
  const stamped = Date.now();
  let ms = stamped;
  while (ms <= stamped) ms = Date.now();
  clock = fromMs(ms);
  return clock;
}

/** Opens `ino` as the kernel would, reads from it, releases it; returns open's keep-cache flag. */
function openAndRead(ino: number, flags = O_RDONLY): boolean | undefined {
  const keep = call(OP.open, ino, flags).keep;
  call(OP.read, ino, 1, 4096, 0);
  call(OP.release, ino, 1);
  return keep;
}

function atimeOf(ino: number): Timespec | undefined {
  return call(OP.getattr, ino, -1).atime;
}

describe("fuse3 atime (relatime)", () => {
  it("a read after a change updates atime; the next open keeps the page cache and its read changes nothing", () => {
    writeFile("/f", "data");
    const ino = call(OP.lookup, ROOT_INO, "f") && fs.stat("/f").ino;
    const first = later();
    expect(openAndRead(ino)).toBe(false);
    expect(atimeOf(ino)).toEqual(first);
    expect(mirror.vfs.lstat("/f").atime).toEqual(first);
    later();
    expect(openAndRead(ino)).toBe(true);
    expect(atimeOf(ino)).toEqual(first);
  });

  it("an atime set in the past drops the page cache at the next open for reading, not for writing", () => {
    writeFile("/f", "data");
    const ino = call(OP.lookup, ROOT_INO, "f") && fs.stat("/f").ino;
    later();
    openAndRead(ino);
    fs.utimens("/f", { sec: 1000, nsec: 0 }, "omit");
    later();
    expect(call(OP.open, ino, O_WRONLY).keep).toBe(true);
    call(OP.release, ino, 1);
    expect(atimeOf(ino)).toEqual({ sec: 1000, nsec: 0 });
    const read = later();
    expect(openAndRead(ino)).toBe(false);
    expect(atimeOf(ino)).toEqual(read);
  });

  it("readdir updates a directory's atime after an entry was added, once", () => {
    fs.mkdir("/d", 0o755);
    const ino = call(OP.lookup, ROOT_INO, "d") && fs.stat("/d").ino;
    const list = () => {
      const fh = call(OP.opendir, ino, 0).fh ?? -1;
      expect(call(OP.readdir, ino, fh, 4096, 0).kind).toBe("dir");
      call(OP.releasedir, ino, fh);
    };
    const first = later();
    list();
    expect(atimeOf(ino)).toEqual(first);
    later();
    list();
    expect(atimeOf(ino)).toEqual(first);
    writeFile("/d/new", "");
    const second = later();
    list();
    expect(atimeOf(ino)).toEqual(second);
  });

  it("readlink updates the link's atime (following a link reads it), not its target's", () => {
    writeFile("/f", "data");
    fs.symlink("f", "/l");
    const link = call(OP.lookup, ROOT_INO, "l") && fs.stat("/l").ino;
    const target = fs.stat("/f");
    const now = later();
    call(OP.readlink, link);
    expect(atimeOf(link)).toEqual(now);
    expect(fs.stat("/f").atime).toEqual(target.atime);
  });
});
