/**
 * The request handlers of the FUSE 3 backend: low-level requests (node ids, the caller's uid/gid)
 * turned into LocalFs calls on paths, and the answers into the addon's reply functions. Times
 * cross in nanoseconds both ways; new files belong to the caller (the group of a setgid
 * directory); a lookup miss is a cached negative entry, not an error. Files unlinked while open
 * and removed directories still in use are orphans (fuse3-orphans.ts): nlink 0, no visible name.
 */
import { FsError, NAME_MAX, type Stat } from "@computer/vfs";
import { AnsweredWrites } from "./answered-writes.ts";
import { type DirectWrites, NO_DIRECT_WRITES } from "./direct-writes.ts";
import { ERRNO, type ErrorLogger, toErrno } from "./errno.ts";
import { fillAttributes } from "./fuse3-attrs.ts";
import { DirHandles } from "./fuse3-dirs.ts";
import { hiding } from "./fuse3-hiding.ts";
import { killPrivileges } from "./fuse3-kill-priv.ts";
import { LOOP_ANSWERED, loopAnswered } from "./fuse3-loop-answered.ts";
import { type LoopAttributeHooks, LoopAttributes } from "./fuse3-loop-attrs.ts";
import { type LoopCreateHooks, LoopCreates } from "./fuse3-loop-creates.ts";
import { type LoopNameHooks, LoopNames } from "./fuse3-loop-names.ts";
import { loopOpened } from "./fuse3-loop-opens.ts";
import { type Fuse3Addon, OP, OP_NAMES, type RequestHandle, type RequestListener } from "./fuse3-native.ts";
import { NodeTable } from "./fuse3-nodes.ts";
import { Orphans, removeStaleOrphans } from "./fuse3-orphans.ts";
import { ownNew } from "./fuse3-own.ts";
import { setattr } from "./fuse3-setattr.ts";
import type { Fuse3Timeouts } from "./fuse3-timeouts.ts";
import { handleXattr } from "./fuse3-xattrs.ts";
import type { LocalFs } from "./local-fs.ts";
import { PageCachePolicy, type SeenListener } from "./page-cache.ts";
import { whenChunksReady } from "./remote-chunks.ts";

export type { Fuse3Timeouts };

const RENAME_NOREPLACE = 1;
const RENAME_EXCHANGE = 2;
const O_TRUNC = 0o1000;
const O_ACCMODE = 0o3;
const O_RDONLY = 0;
const O_WRONLY = 0o1;
const O_APPEND = 0o2000;

/** What the handlers tell the kernel side (the backend, once the session exists). */
export interface KernelHooks extends LoopAttributeHooks, LoopNameHooks, LoopCreateHooks {
  /** Write-only handles that bypass the page cache, and the stores after them (direct-writes.ts). */
  directWrites?: DirectWrites;
  /**
   * The daemon changed attributes the kernel caches without knowing (an atime); settles once the
   * kernel has dropped them.
   */
  attributesChanged?(ino: number): Promise<unknown> | undefined;
  /** A `security.capability` attribute is about to be stored: the loop must stop answering its probes. */
  capabilityStored?(): void;
  /** A file is about to get setuid or setgid: the loop must pass writes that kill them on (fuse3-kill-priv.ts). */
  setidStored?(): void;
  /** Drops the kernel's cached first page of `ino` (its attributes too); false when it could not. */
  dropFirstPage?(ino: number): Promise<boolean>;
  /** The loop may answer the writes through `fh` of `ino` that continue at `next` (answered-writes.ts). */
  continueWrites?(ino: number, fh: number, next: number): void;
  /** What the kernel's pages of a file are of (page-cache.ts): the loop answers opens with it. */
  pagesSeen?: SeenListener;
}

export { CAPABILITY_XATTR } from "./fuse3-xattrs.ts";

/** Builds the listener the addon calls for every request. */
export function fuse3Listener(
  addon: Fuse3Addon,
  fs: LocalFs,
  log: ErrorLogger,
  counters: Record<string, number>,
  timeouts: Fuse3Timeouts,
  onExit: () => void,
  kernel: KernelHooks = {},
): {
  listener: RequestListener;
  nodes: NodeTable;
  /** The creates the loop answers: started by the backend once the session exists. */
  loopCreates: LoopCreates;
  clearLoopAttributes: () => void;
  /** Settles once every write the loop answered is buffered. */
  answeredWritesBuffered: () => Promise<void>;
} {
  const attributesChanged = kernel.attributesChanged ?? (() => undefined);
  const nodes = new NodeTable();
  const attr = new Float64Array(14);
  const miss = new Float64Array(14);
  let scratch = Buffer.alloc(1 << 20);
  const orphans = new Orphans();
  removeStaleOrphans(fs);
  const pageCache = new PageCachePolicy(timeouts.pageCache, kernel.pagesSeen);
  const directs = kernel.directWrites ?? NO_DIRECT_WRITES;
  // What a getattr answers changes only through LocalFs, which says so before the reply.
  const loopAttrs = new LoopAttributes(kernel, timeouts.attrTimeout);
  // Misses the loop can prove and names found it answers again (told before each answer).
  const loopNames = new LoopNames(kernel, timeouts.negativeTimeout, timeouts.entryTimeout);
  fs.namesChangedBehind = () => loopNames.clear();
  fs.attributesChanged = (ino) => (ino === undefined ? loopAttrs.clear() : loopAttrs.drop(ino));
  // The kernel keeps attributes long: what the daemon changes on its own it must be told.
  const changedBehind = (ino: number) => nodes.has(ino) && void attributesChanged(ino);
  fs.storeChangedAttributes = changedBehind;
  const answered = new AnsweredWrites(
    fs,
    kernel.continueWrites ?? (() => {}),
    (ino) => fs.stat(pathOf(ino)).size,
  );

  const owners = timeouts.owners;
  const loopCreates = new LoopCreates(kernel, fs, { ...timeouts, direct: directs.directOpens });
  /** Writes the kernel's view of `stat` into `into` at `at` (14 numbers, as the addon reads them). */
  function fillAt(into: Float64Array, at: number, stat: Stat): void {
    fillAttributes(into, at, stat, owners, orphans.isHidden(stat.ino));
  }
  function fill(stat: Stat): Float64Array {
    fillAt(attr, 0, stat);
    return attr;
  }
  const dirHandles = new DirHandles({
    addon,
    fs,
    nodes,
    orphans,
    fillAt,
    entryTimeout: timeouts.entryTimeout,
    attrTimeout: timeouts.attrTimeout,
    answered: (attrs, count) => loopAttrs.answered(attrs, count),
    refresh: (ino) => refresh(ino),
  });
  function pathOf(ino: number): string {
    const path = nodes.pathOf(ino);
    if (path === undefined) throw new FsError("ENOENT", "fuse3", `#${ino}`);
    return path;
  }
  function childPath(parent: number, name: string): string {
    const path = nodes.childPath(parent, name);
    if (path === undefined) throw new FsError("ENOENT", "fuse3", `#${parent}/${name}`);
    return path;
  }
  /** The kernel's view of `stat`, which the loop then answers getattrs of `stat.ino` with. */
  const answer = (stat: Stat) => loopAttrs.answer(fill(stat));
  /** After a write or a storing close: the loop gets the file's attributes if cached (no SQL). */
  const refresh = (ino: number) => loopAttrs.enabled && fs.cachedAttributes(ino, answer);
  fs.attributesStored = refresh;
  /** A close of `fh` ended a change the kernel made through its page cache: the size and mtime it leaves are its own. */
  function kernelWrote(ino: number, fh: number): void {
    const written = pageCache.writes(fh) ? fs.lookup(nodes.pathOf(ino) ?? "/") : undefined;
    if (written?.ino === ino) pageCache.changedByKernel(written);
  }
  /** Answers an entry of `parent` (a name found or just added: the loop's names must have it first). */
  function entry(req: RequestHandle, parent: number, name: string, stat: Stat): void {
    loopNames.added(parent, name, stat.ino);
    nodes.looked(stat.ino, parent, name);
    addon.replyEntry(req, answer(stat), timeouts.entryTimeout, timeouts.attrTimeout);
  }
  /** New files belong to the caller (fuse3-own.ts). */
  const own = (path: string, uid: number, gid: number) =>
    ownNew(fs, owners, path, { uid, gid }, () => kernel.setidStored?.());
  const { mustHide, hide, removeHidden, released } = hiding({
    fs,
    nodes,
    childPath,
    orphans,
    loopNames,
    changedIn,
    changedBehind,
  });
  /** After a name in directory `ino` changed: the loop answers the kernel's next getattr of it
   * (its permission check of the next path walk through it). */
  function changedIn(ino: number): void {
    if (!loopAttrs.enabled) return;
    const path = nodes.pathOf(ino);
    const stat = path === undefined ? undefined : fs.lookup(path);
    if (stat?.type === "dir" && stat.ino === ino) answer(stat);
  }
  const xattrs = { addon, fs, pathOf, capabilityStored: () => kernel.capabilityStored?.() };
  const loopChanges = {
    ...{ fs, nodes, loopNames, loopAttrs, loopCreates, orphans, pageCache, directs, owners, log },
    ...{ changedIn, changedBehind, mustHide, hide, refresh: (ino: number) => refresh(ino) },
  };
  const loopOpens = { fs, nodes, orphans, pageCache, dirHandles };

  /** Answers once the kernel dropped its attributes of `ino` if they `changed` behind it (atime, setuid). */
  function afterDropped(ino: number, changed: boolean, reply: () => void): void {
    const dropped = changed ? attributesChanged(ino) : undefined;
    if (dropped) void dropped.then(reply, reply);
    else reply();
  }

  function handle(
    op: number,
    req: RequestHandle,
    uid: number,
    gid: number,
    pid: number,
    a: (number | string | Buffer)[],
  ): void {
    const n = (i: number) => a[i] as number;
    const s = (i: number) => a[i] as string;
    switch (op) {
      case OP.lookup: {
        // The kernel leaves name length to the filesystem: a miss here would say ENOENT.
        if (Buffer.byteLength(s(1)) > NAME_MAX) throw new FsError("ENAMETOOLONG", "lookup", s(1));
        const stat = orphans.conceals(n(0), s(1)) ? undefined : fs.lookup(childPath(n(0), s(1)));
        // A miss read the directory's complete listing: the loop answers the next misses there.
        if (!stat) loopNames.missed(n(0), () => fs.listing(pathOf(n(0))));
        if (stat) entry(req, n(0), s(1), stat);
        else addon.replyEntry(req, miss, timeouts.negativeTimeout, 0);
        return;
      }
      case OP.getattr: {
        const path = nodes.pathOf(n(0));
        const removed = path === undefined ? orphans.removedDir(n(0)) : undefined;
        const attrs = removed ? fill(removed) : answer(fs.stat(pathOf(n(0))));
        addon.replyAttr(req, attrs, timeouts.attrTimeout);
        return;
      }
      case OP.setattr: {
        const path = pathOf(n(0));
        setattr(fs, owners, path, n, { gid, pid }, () => kernel.setidStored?.());
        const changed = fs.stat(path);
        // The kernel cuts its own pages of a truncate; times it set are what it shows.
        pageCache.changedByKernel(changed);
        addon.replyAttr(req, answer(changed), timeouts.attrTimeout);
        return;
      }
      case OP.readlink: {
        // Following a link reads it too: both update its atime (relatime), as on tmpfs.
        const path = pathOf(n(0));
        const target = fs.readlink(path);
        fs.accessed(n(0), path);
        addon.replyReadlink(req, target);
        return;
      }
      case OP.mknod: {
        const path = childPath(n(0), s(3));
        fs.mknod(path, n(1), n(2));
        const made = own(path, uid, gid);
        changedIn(n(0));
        entry(req, n(0), s(3), made);
        return;
      }
      case OP.mkdir: {
        const path = childPath(n(0), s(2));
        fs.mkdir(path, n(1));
        const made = own(path, uid, gid);
        loopNames.made(made.ino);
        changedIn(n(0));
        entry(req, n(0), s(2), made);
        return;
      }
      case OP.symlink: {
        const path = childPath(n(0), s(1));
        fs.symlink(s(2), path);
        const made = own(path, uid, gid);
        changedIn(n(0));
        entry(req, n(0), s(1), made);
        return;
      }
      case OP.link: {
        const path = childPath(n(1), s(2));
        fs.link(pathOf(n(0)), path);
        changedIn(n(1));
        entry(req, n(1), s(2), fs.stat(path));
        return;
      }
      case OP.unlink:
      case OP.rmdir: {
        // Each table changes only after the vfs call that can refuse succeeded (a name found goes first).
        const path = childPath(n(0), s(1));
        loopNames.going(n(0), s(1));
        const stat = fs.stat(path);
        if (op === OP.rmdir) {
          fs.rmdir(path);
          loopNames.dropped(stat.ino);
          orphans.dirRemoved(stat);
        } else if (mustHide(stat)) {
          hide(n(0), s(1), stat);
          changedIn(n(0));
          addon.replyErr(req, 0);
          return;
        } else fs.unlink(path);
        nodes.unlinked(stat.ino, n(0), s(1));
        // A file other names keep (git's objects): the loop answers the kernel's next getattr.
        if (stat.type !== "dir" && stat.nlink > 1) refresh(stat.ino);
        changedIn(n(0));
        addon.replyErr(req, 0);
        return;
      }
      case OP.rename: {
        const [parent, newParent, flags, name, newName] = [n(0), n(1), n(2), s(3), s(4)];
        // The kernel refuses these combinations itself; WHITEOUT (overlayfs) is not supported.
        if (flags & ~(RENAME_NOREPLACE | RENAME_EXCHANGE) || flags === (RENAME_NOREPLACE | RENAME_EXCHANGE))
          throw new FsError("EINVAL", "rename", name);
        const from = childPath(parent, name);
        const to = childPath(newParent, newName);
        loopNames.renaming(parent, name, newParent, newName);
        if (flags & RENAME_EXCHANGE) {
          const [a, b] = [fs.stat(from, "rename"), fs.stat(to, "rename")];
          fs.exchange(from, to);
          if (a.ino !== b.ino) {
            nodes.renamed(a.ino, { parent, name }, { parent: newParent, name: newName });
            nodes.renamed(b.ino, { parent: newParent, name: newName }, { parent, name });
          }
          changedIn(parent);
          changedIn(newParent);
          addon.replyErr(req, 0);
          return;
        }
        const src = fs.stat(from, "rename");
        const dst = fs.lookup(to);
        if (dst && flags & RENAME_NOREPLACE) throw new FsError("EEXIST", "rename", to);
        const replaced = dst && dst.ino !== src.ino ? dst : undefined;
        // A refused rename changes nothing: not the node table (the target's name would be
        // lost until the kernel's entry timed out), not the orphans. So an open file being
        // replaced is hidden only once the rename is known to succeed.
        const hidden = replaced !== undefined && mustHide(replaced);
        if (hidden && replaced) {
          fs.checkRename(from, to);
          hide(newParent, newName, replaced);
        }
        fs.rename(from, to);
        loopNames.added(newParent, newName);
        if (replaced && !hidden) {
          nodes.unlinked(replaced.ino, newParent, newName);
          if (replaced.type === "dir") orphans.dirRemoved(replaced);
        }
        nodes.renamed(src.ino, { parent, name }, { parent: newParent, name: newName });
        changedIn(parent);
        changedIn(newParent);
        addon.replyErr(req, 0);
        return;
      }
      case OP.create: {
        const path = childPath(n(0), s(3));
        const { fh } = fs.create(path, n(1));
        loopNames.added(n(0), s(3));
        const stat = own(path, uid, gid);
        loopNames.answered(n(0), s(3), stat.ino);
        pageCache.opened(stat, fh, n(2));
        orphans.opened(stat.ino);
        nodes.looked(stat.ino, n(0), s(3));
        changedIn(n(0));
        // Armed before the reply: the new file's first write may already be the loop's to answer.
        if ((n(2) & O_ACCMODE) !== O_RDONLY) answered.opened(stat.ino, fh, 0);
        const direct = directs.opened(stat.ino, fh, n(2), true);
        addon.replyCreate(req, answer(stat), timeouts.entryTimeout, timeouts.attrTimeout, fh, direct);
        return;
      }
      case OP.open: {
        const path = pathOf(n(0));
        const wasEmpty = n(1) & O_TRUNC ? fs.stat(path).size === 0 : false;
        const fh = fs.open(path, n(1));
        // O_TRUNC marks mtime and ctime even when there is nothing to cut (POSIX open).
        if (wasEmpty) fs.utimens(path, "omit", "now");
        const killed = n(2) !== 0 && killPrivileges(fs, owners, path, n(2), { gid, pid });
        const stat = fs.stat(path);
        const keep = pageCache.opened(stat, fh, n(1));
        orphans.opened(n(0));
        if ((n(1) & O_ACCMODE) !== O_RDONLY) answered.opened(stat.ino, fh, n(1) & O_APPEND ? stat.size : 0);
        // Reads the kept cache serves never reach us: when this open's first read is due to
        // update atime (relatime.ts), the cached first page goes (only it), so a read from the
        // start arrives; if that cannot be done, the whole cache goes.
        const due = keep && (n(1) & O_ACCMODE) !== O_WRONLY && fs.accessDue(stat.ino, path);
        const direct = directs.opened(stat.ino, fh, n(1));
        // A read-only handle's closes have nothing to report: the kernel sends them no FLUSH.
        const noFlush = (n(1) & O_ACCMODE) === O_RDONLY;
        const reply = (keeps: boolean) => addon.replyOpen(req, fh, keeps, false, direct, noFlush);
        if (killed && !due) afterDropped(n(0), true, () => reply(keep));
        else if (!due) reply(keep);
        else if (!kernel.dropFirstPage) reply(false);
        else void kernel.dropFirstPage(stat.ino).then(reply, () => reply(false));
        return;
      }
      case OP.read: {
        const [ino, fh, size, offset] = [n(0), n(1), n(2), n(3)];
        if (scratch.length < size) scratch = Buffer.alloc(size);
        const path = nodes.pathOf(ino) ?? "";
        const count = fs.read(fh, path, scratch, offset, size);
        if (fs.accessed(ino, path)) refresh(ino); // a moved atime: the loop's next getattr and open
        addon.replyBuf(req, scratch, count);
        return;
      }
      case OP.write: {
        // The addon made this buffer for this request alone: whole pages may keep it.
        const data = a[4] as Buffer;
        const path = nodes.pathOf(n(0)) ?? "";
        const killed = n(3) !== 0 && path !== "" && killPrivileges(fs, owners, path, n(3), { gid, pid });
        const taken = fs.write(n(1), path, data, n(2), true);
        refresh(n(0));
        // Armed before the reply: the writer's next write may already be the loop's to answer.
        answered.took(n(0), n(1), n(2), data.length, taken);
        afterDropped(n(0), killed, () => addon.replyWrite(req, taken));
        return;
      }
      case OP.copy_file_range: {
        // The kernel refuses flags itself today; any it passes later are not ours to ignore.
        if (n(7) !== 0) throw new FsError("EINVAL", "copy_file_range", `#${n(0)}`);
        const from = { fh: n(1), path: nodes.pathOf(n(0)) ?? "", offset: n(2) };
        const to = { fh: n(4), path: nodes.pathOf(n(3)) ?? "", offset: n(5) };
        const copied = fs.copyRange(from, to, n(6));
        refresh(n(3));
        // The kernel drops the target's pages of the range itself.
        pageCache.changedByKernel(fs.stat(to.path));
        // The kernel drops a file's cached atime after reads it sends, not after a copy: the
        // source's attributes are dropped before the answer, so a stat right after the copy
        // sees its new atime (after the answer, a fast `cp f g; stat f` raced the notification).
        const read = copied > 0 && fs.accessed(n(0), from.path);
        afterDropped(n(0), read, () => addon.replyWrite(req, copied));
        return;
      }
      case OP.flush: {
        kernelWrote(n(0), n(1));
        fs.flush(n(1));
        refresh(n(0));
        addon.replyErr(req, 0);
        return;
      }
      case OP.fsync:
        fs.fsync(n(1), nodes.pathOf(n(0)) ?? "");
        refresh(n(0));
        addon.replyErr(req, 0);
        return;
      case OP.fsyncdir:
        fs.fsyncDir(pathOf(n(0)));
        addon.replyErr(req, 0);
        return;
      case OP.opendir:
        dirHandles.opendir(req, n(0), pathOf(n(0)));
        return;
      case OP.readdir:
        dirHandles.readdir(req, n(0), n(1), n(2), n(3));
        return;
      case OP.readdirplus:
        dirHandles.readdirplus(req, n(0), n(1), n(2), n(3));
        return;
      case OP.statfs: {
        const st = fs.statfs();
        addon.replyStatfs(
          req,
          Float64Array.of(st.bsize, st.blocks, st.bfree, st.bavail, st.files, st.ffree, st.namemax),
        );
        return;
      }
      default:
        if (!handleXattr(xattrs, op, req, a)) addon.replyErr(req, -ERRNO.ENOSYS);
    }
  }

  const listener: RequestListener = (op, req, uid, gid, pid, _umask, ...args) => {
    const name = OP_NAMES[op] ?? `op${op}`;
    // Opens the loop answered are counted there (native/fuse3.c); a releasedir here, as a release.
    if (req || (op !== OP.open && op !== OP.opendir && !LOOP_ANSWERED.has(op)))
      counters[name] = (counters[name] ?? 0) + 1;
    if (!req && loopOpened(loopOpens, op, args)) return;
    if (op === OP.forget) {
      nodes.forget(args[0] as number, args[1] as number);
      if (!nodes.has(args[0] as number)) {
        removeHidden(orphans.forgotten(args[0] as number));
        pageCache.forgotten(args[0] as number);
        loopAttrs.drop(args[0] as number);
      }
      return;
    }
    if (op === OP.exit) return onExit();
    if (loopAnswered(loopChanges, op, args)) return;
    if (op === OP.release) {
      // Answered by the loop (native/fuse3.c ll_release); the loop answers closes too, so the
      // page cache learns here what the kernel's writes left.
      const [ino, fh] = args as [number, number];
      kernelWrote(ino, fh);
      pageCache.released(fh);
      directs.released(fh, pageCache.writing(ino), () => fs.files.contentInMemory(ino));
      fs.release(fh);
      released(ino);
      refresh(ino);
      return;
    }
    if (op === OP.write_early || op === OP.write_run) {
      // No reply. A run is dated by the loop, which kept its attributes (fuse3.c attrs_after_write).
      const [ino, fh, offset, sec, nsec] = args as number[] as [number, number, number, number, number];
      const at = op === OP.write_run ? { sec, nsec } : undefined;
      const put = () =>
        answered.answered(ino, fh, nodes.pathOf(ino) ?? "", args.at(-1) as Buffer, offset, at);
      return at ? loopAttrs.keeping(ino, put) : put();
    }
    if (!req) return;
    const fail = (err: unknown) => addon.replyErr(req, -toErrno(err, name, String(args[0]), log));
    // Bytes still at the Durable Object: handled once the chunks it needs are here.
    // A file whose bytes are on their way into the kernel's page cache changes only after them.
    directs.afterStore(op, args, () =>
      whenChunksReady(fs, op, args, pathOf, fail, () => handle(op, req, uid, gid, pid, args)),
    );
  };
  return {
    listener,
    nodes,
    loopCreates,
    clearLoopAttributes: () => loopAttrs.clear(),
    answeredWritesBuffered: () => answered.buffered(),
  };
}
