/**
 * Inodes whose getattr the FUSE loop answers itself (cacheAttrs in native/fuse3.c). The kernel
 * asks for attributes again when their timeout ran out, after each write, link, unlink or
 * rename it sends (it drops what they change), and, with default_permissions, for the
 * permission check of a path walk through a directory whose attributes a change of names in
 * it dropped. Every reply that carries attributes (lookup, getattr, setattr, create, mknod,
 * mkdir, symlink, link, readdirplus entries) and every change of names (the directories it
 * changed) gives the loop exactly what a getattr would answer at that moment.
 *
 * Exactness: what a getattr answers is the listener's view of LocalFs's attributes (the meta
 * cache's, with the write-back's buffered size and times over them). LocalFs tells the
 * listener whenever either changes for an inode (`LocalFs.attributesChanged`), synchronously,
 * before the request that changed it is answered; the listener drops that inode here. Remote
 * changes clear the meta cache's attributes, which clears the loop's. So the loop never
 * answers with attributes JS would not (a getattr racing a change still being handled sees
 * the attributes from before it, as it would from the kernel's own cache).
 */

/** What the loop is told. */
export interface LoopAttributeHooks {
  cacheAttrs?(attrs: Float64Array, count: number, attrTimeout: number): void;
  clearAttrs?(): void;
  dropAttr?(ino: number): void;
}

/** More inodes given than this and the table is cleared, so `given` stays bounded. */
const GIVEN_MAX = 1 << 16;

/** The listener's side of the loop's attribute table. */
export class LoopAttributes {
  private readonly hooks: LoopAttributeHooks;
  private readonly attrTimeout: number;
  /**
   * Inodes given since the last clear (the loop may have evicted some): a drop of any other
   * costs nothing.
   */
  private readonly given = new Set<number>();
  /** Inodes whose drops are skipped for now (keeping). */
  private kept: readonly number[] = [];

  constructor(hooks: LoopAttributeHooks, attrTimeout: number) {
    this.hooks = hooks;
    this.attrTimeout = attrTimeout;
  }

  /** Whether the loop keeps attributes at all (a kernel mount). */
  get enabled(): boolean {
    return this.hooks.cacheAttrs !== undefined;
  }

  /** Gives the loop `count` inodes' attributes (14 numbers each, from `attrs[0]`), as a getattr answers them now. */
  answered(attrs: Float64Array, count = 1): void {
    if (!this.hooks.cacheAttrs) return;
    if (this.given.size + count > GIVEN_MAX) this.clear();
    for (let i = 0; i < count; i++) {
      const at = i * 14;
      if (attrs[at + 2] !== 0) this.given.add(attrs[at] as number);
    }
    this.hooks.cacheAttrs(attrs, count, this.attrTimeout);
  }

  /** answered() for one inode, whose attributes (as a reply carries them) it answers. */
  answer(attrs: Float64Array): Float64Array {
    this.answered(attrs);
    return attrs;
  }

  /** The loop holds attributes of `ino` (given here or put by the loop): a drop reaches it. */
  private answeredAlready(ino: number): void {
    if (this.given.size + 1 > GIVEN_MAX) this.clear();
    this.given.add(ino);
  }

  /** The attributes of `ino` are about to change (or are unknown): the loop forgets them. */
  drop(ino: number): void {
    if (this.kept.includes(ino) || !this.given.delete(ino)) return;
    this.hooks.dropAttr?.(ino);
  }

  /**
   * The loop put the attributes of `ino` itself (a create it answered, native/loop-creates.h):
   * they are dropped like those given here.
   */
  putByLoop(ino: number): void {
    this.answeredAlready(ino);
  }

  /**
   * Runs `change`, a change of `inos` the loop has already made to its own attributes of them (a
   * create it answered dated its directory, an unlink also the file's link count): the loop
   * keeps them meanwhile, instead of sending the kernel's getattrs of them here until the change
   * is done.
   */
  keeping<T>(inos: number | readonly number[], change: () => T): T {
    this.kept = typeof inos === "number" ? [inos] : inos;
    try {
      return change();
    } finally {
      this.kept = [];
    }
  }

  /**
   * Forgets every inode the loop holds (remote changes, a change it cannot follow). Always told:
   * the loop keeps attributes of its own (its creates) and bytes of files it wrote
   * (native/loop-contents.h), which no drop here reaches.
   */
  clear(): void {
    this.given.clear();
    this.hooks.clearAttrs?.();
  }
}
