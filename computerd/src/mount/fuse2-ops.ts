/**
 * The fuse-native operation table over a LocalFs: argument conversion (modes,
 * millisecond times, ids), "." and ".." in readdir, and every thrown value turned
 * into a negative errno (FsError by code, anything else EIO and logged). Each
 * operation is counted, for benchmarks.
 */

import type { Stat, TimeArg } from "@computer/vfs";
import { TYPE_BITS } from "@computer/vfs/mode-bits";
import { ERRNO, type ErrorLogger, toErrno } from "./errno.ts";
import type { OpCounters } from "./fuse-types.ts";
import type { NativeOperations, NativeStat } from "./fuse2-native.ts";
import type { LocalFs } from "./local-fs.ts";
import { splitParent } from "./meta-cache.ts";
import type { OwnerMap } from "./owner-map.ts";

/** A Stat in fuse-native's shape (times in ms; owner ids through `owners` when given). */
export function toNativeStat(stat: Stat, owners?: OwnerMap): NativeStat {
  const { uid, gid } = owners ? owners.toKernel(stat) : stat;
  return {
    mode: TYPE_BITS[stat.type] | stat.mode,
    uid,
    gid,
    size: stat.size,
    dev: 0,
    nlink: stat.nlink,
    ino: stat.ino,
    rdev: stat.rdev,
    blksize: 4096,
    blocks: Math.ceil(stat.allocated / 512),
    atime: millis(stat.atime),
    mtime: millis(stat.mtime),
    ctime: millis(stat.ctime),
  };
}

/**
 * What fuse-native makes of UTIME_OMIT/UTIME_NOW (tv_sec 0, tv_nsec ≈ 2^30):
 * 1073 ms. The kernel sends explicit times for "now", so this value means "omit".
 */
const OMITTED_MS = 1073;

/** fuse-native hands pre-1970 times over as unsigned 64-bit milliseconds (precision: ~2 s). */
const TWO_TO_63 = 2 ** 63;
const TWO_TO_64 = 2 ** 64;

function timeArg(ms: number): TimeArg {
  if (ms === OMITTED_MS) return "omit";
  return ms >= TWO_TO_63 ? ms - TWO_TO_64 : ms;
}

/** Milliseconds for fuse-native, which cannot carry times before 1970: those show as the epoch. */
function millis(time: { sec: number; nsec: number }): number {
  return Math.max(0, time.sec * 1000 + Math.floor(time.nsec / 1e6));
}

const XATTR_CREATE = 1;
const XATTR_REPLACE = 2;
const NO_ID = 0xffffffff;

/**
 * Builds the operation table. `counters` receives one increment per call; `owners` maps owner
 * ids between the vfs and the kernel (getattr, chown).
 */
export function fuseOperations(
  fs: LocalFs,
  log: ErrorLogger,
  counters: OpCounters,
  owners?: OwnerMap,
): Partial<NativeOperations> {
  function count(op: string): void {
    counters[op] = (counters[op] ?? 0) + 1;
  }
  /** Runs a void operation: 0 on success, the errno of whatever it throws. */
  function run(op: string, path: string, cb: (result: number) => void, fn: () => void): void {
    count(op);
    try {
      fn();
    } catch (err) {
      cb(toErrno(err, op, path, log));
      return;
    }
    cb(0);
  }
  function fail(op: string, path: string, err: unknown): number {
    return toErrno(err, op, path, log);
  }

  return {
    getattr(path, cb) {
      count("getattr");
      try {
        const stat = fs.lookup(path);
        if (stat) cb(0, toNativeStat(stat, owners));
        else cb(ERRNO.ENOENT);
      } catch (err) {
        cb(fail("getattr", path, err));
      }
    },
    readdir(path, cb) {
      count("readdir");
      try {
        const entries = fs.readdir(path);
        const self = fs.stat(path);
        const parent = path === "/" ? self : fs.stat(splitParent(path).parent);
        const names = [".", ".."];
        const stats: Partial<NativeStat>[] = [
          { ino: self.ino, mode: TYPE_BITS.dir },
          { ino: parent.ino, mode: TYPE_BITS.dir },
        ];
        for (const [name, entry] of entries) {
          names.push(name);
          stats.push({ ino: entry.ino, mode: TYPE_BITS[entry.type] });
        }
        cb(0, names, stats);
      } catch (err) {
        cb(fail("readdir", path, err));
      }
    },
    access(path, _mode, cb) {
      count("access");
      try {
        cb(fs.lookup(path) ? 0 : ERRNO.ENOENT);
      } catch (err) {
        cb(fail("access", path, err));
      }
    },
    statfs(path, cb) {
      count("statfs");
      try {
        const s = fs.statfs();
        const max = 0xffffffff;
        cb(0, {
          bsize: s.bsize,
          frsize: s.bsize,
          blocks: Math.min(max, s.blocks),
          bfree: Math.min(max, s.bfree),
          bavail: Math.min(max, s.bavail),
          files: s.files,
          ffree: s.ffree,
          favail: s.ffree,
          fsid: 0,
          flag: 0,
          namemax: s.namemax,
        });
      } catch (err) {
        cb(fail("statfs", path, err));
      }
    },
    open(path, flags, cb) {
      count("open");
      try {
        cb(0, fs.open(path, flags));
      } catch (err) {
        cb(fail("open", path, err));
      }
    },
    create(path, mode, cb) {
      count("create");
      try {
        cb(0, fs.create(path, mode).fh);
      } catch (err) {
        cb(fail("create", path, err));
      }
    },
    read(path, fh, buf, len, pos, cb) {
      count("read");
      try {
        cb(fs.read(fh, path, buf, pos, len));
      } catch (err) {
        cb(fail("read", path, err));
      }
    },
    write(path, fh, buf, len, pos, cb) {
      count("write");
      try {
        // fuse-native's buffer points into libfuse memory that is reused after the reply: copy (WriteBack does).
        cb(fs.write(fh, path, buf.subarray(0, len), pos));
      } catch (err) {
        cb(fail("write", path, err));
      }
    },
    release(path, fh, cb) {
      run("release", path, cb, () => fs.release(fh));
    },
    flush(path, fh, cb) {
      run("flush", path, cb, () => fs.flush(fh));
    },
    fsync(path, _datasync, fh, cb) {
      run("fsync", path, cb, () => fs.fsync(fh, path));
    },
    fsyncdir(_path, _datasync, _fh, cb) {
      count("fsyncdir");
      cb(0);
    },
    truncate(path, size, cb) {
      run("truncate", path, cb, () => fs.truncate(path, size));
    },
    ftruncate(path, fh, size, cb) {
      run("ftruncate", path, cb, () => fs.truncate(path, size, fh));
    },
    utimens(path, atime, mtime, cb) {
      run("utimens", path, cb, () => fs.utimens(path, timeArg(atime), timeArg(mtime)));
    },
    readlink(path, cb) {
      count("readlink");
      try {
        cb(0, fs.readlink(path));
      } catch (err) {
        cb(fail("readlink", path, err));
      }
    },
    chown(path, uid, gid, cb) {
      run("chown", path, cb, () => {
        const asked = { uid: uid === NO_ID ? -1 : uid, gid: gid === NO_ID ? -1 : gid };
        const owner = owners ? owners.fromKernel(asked) : asked;
        fs.chown(path, owner.uid, owner.gid);
      });
    },
    chmod(path, mode, cb) {
      run("chmod", path, cb, () => fs.chmod(path, mode));
    },
    mknod(path, mode, dev, cb) {
      run("mknod", path, cb, () => fs.mknod(path, mode, dev));
    },
    setxattr(path, name, value, _position, flags, cb) {
      run("setxattr", path, cb, () =>
        fs.setxattr(path, name, new Uint8Array(value), {
          create: (flags & XATTR_CREATE) !== 0,
          replace: (flags & XATTR_REPLACE) !== 0,
        }),
      );
    },
    getxattr(path, name, _position, cb) {
      count("getxattr");
      try {
        const value = fs.getxattr(path, name);
        if (value) cb(0, Buffer.from(value));
        else cb(ERRNO.ENODATA);
      } catch (err) {
        cb(fail("getxattr", path, err));
      }
    },
    listxattr(path, cb) {
      count("listxattr");
      try {
        cb(0, fs.listxattr(path));
      } catch (err) {
        cb(fail("listxattr", path, err));
      }
    },
    removexattr(path, name, cb) {
      run("removexattr", path, cb, () => fs.removexattr(path, name));
    },
    unlink(path, cb) {
      run("unlink", path, cb, () => fs.unlink(path));
    },
    rename(from, to, cb) {
      run("rename", from, cb, () => fs.rename(from, to));
    },
    link(existing, path, cb) {
      run("link", path, cb, () => fs.link(existing, path));
    },
    symlink(target, path, cb) {
      run("symlink", path, cb, () => fs.symlink(target, path));
    },
    mkdir(path, mode, cb) {
      run("mkdir", path, cb, () => fs.mkdir(path, mode));
    },
    rmdir(path, cb) {
      run("rmdir", path, cb, () => fs.rmdir(path));
    },
  };
}
