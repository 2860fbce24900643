/**
 * exchange: the atomic swap of two existing names (renameat2 with RENAME_EXCHANGE), as
 * tmpfs and ext4 do it. Each name keeps its place in its directory and gets the other's
 * inode; a directory takes its subtree with it.
 */
import type { Context } from "./context.ts";
import { FsError } from "./errors.ts";
import { ROOT_INO } from "./limits.ts";
import { touchParent } from "./namespace.ts";
import { isWithin } from "./paths.ts";
import { recordInode, resolveExisting } from "./resolve.ts";
import { descendants } from "./subtree.ts";

/**
 * Swaps the entries `a` and `b` (neither followed if a symlink). Both must exist (ENOENT);
 * either may be a file, symlink, special file or (non-empty) directory. Neither may lie
 * below the other (EINVAL), the root cannot move (EBUSY); two names of one inode are left
 * as they are. Both parents get new mtime/ctime and, when a directory and a non-directory
 * trade parents, the subdirectory count moves with the directory; both inodes get a new ctime.
 */
export function exchange(ctx: Context, a: string, b: string): void {
  ctx.mutate(() => {
    const first = resolveExisting(ctx, a, "rename", false);
    const second = resolveExisting(ctx, b, "rename", false);
    if (first.node.ino === ROOT_INO || second.node.ino === ROOT_INO) throw new FsError("EBUSY", "rename", a);
    // Linux refuses both directions with EINVAL: either swap would put a directory inside itself.
    if (
      first.path !== second.path &&
      (isWithin(second.path, first.path) || isWithin(first.path, second.path))
    ) {
      throw new FsError("EINVAL", "rename", a, "cannot swap a directory with a path inside it");
    }
    if (first.node.ino === second.node.ino) return;

    const firstIsDir = first.node.type === "dir";
    const secondIsDir = second.node.type === "dir";
    const firstBelow = firstIsDir ? [...descendants(ctx, first.node.ino, first.path)] : [];
    const secondBelow = secondIsDir ? [...descendants(ctx, second.node.ino, second.path)] : [];

    ctx.store.removeEntry(first.parent, first.name);
    ctx.store.removeEntry(second.parent, second.name);
    ctx.store.addEntry(first.parent, first.name, second.node.ino);
    ctx.store.addEntry(second.parent, second.name, first.node.ino);
    // A parent that trades a directory for a non-directory loses a subdirectory ("..") link.
    const gained = (secondIsDir ? 1 : 0) - (firstIsDir ? 1 : 0);
    if (first.parent === second.parent) touchParent(ctx, first.parent, 0);
    else {
      touchParent(ctx, first.parent, gained);
      touchParent(ctx, second.parent, -gained);
    }
    const now = ctx.clock();
    ctx.store.touch(first.node.ino, now, false);
    ctx.store.touch(second.node.ino, now, false);

    ctx.changed(first.parentPath);
    ctx.changed(second.parentPath);
    // Old paths below either directory go first; those the other subtree fills again come back as changed.
    for (const d of [...firstBelow, ...secondBelow]) ctx.deleted(d.path);
    recordInode(ctx, second.node, first.path);
    recordInode(ctx, first.node, second.path);
    for (const d of firstBelow) ctx.changed(second.path + d.path.slice(first.path.length));
    for (const d of secondBelow) ctx.changed(first.path + d.path.slice(second.path.length));
  });
}
