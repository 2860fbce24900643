/**
 * The node table of the FUSE 3 backend: the low-level API names files by node id
 * (here the vfs inode number; the root is 1 on both sides) while LocalFs works on
 * paths. Each node keeps the names (parent id + name) the kernel reached it by and
 * how many lookups the kernel holds, so a path can be rebuilt for any live node,
 * also after renames of its ancestors, and the entry dropped on the last forget.
 */

interface Link {
  parent: number;
  name: string;
}

interface Node {
  links: Link[];
  lookups: number;
}

/** The root's node id (FUSE_ROOT_ID) and vfs inode. */
export const ROOT_INO = 1;

/** Node id ↔ path bookkeeping. */
export class NodeTable {
  private readonly nodes = new Map<number, Node>();

  /** Whether the kernel holds `ino`. */
  has(ino: number): boolean {
    return ino === ROOT_INO || this.nodes.has(ino);
  }

  /** A current path of `ino`, or undefined when it has no known name left. */
  pathOf(ino: number): string | undefined {
    const parts: string[] = [];
    let current = ino;
    for (let depth = 0; current !== ROOT_INO; depth++) {
      const link = this.nodes.get(current)?.links[0];
      // No depth limit (a path may be longer than PATH_MAX); more steps than nodes is a cycle.
      if (!link || depth > this.nodes.size) return undefined;
      parts.push(link.name);
      current = link.parent;
    }
    return parts.length === 0 ? "/" : `/${parts.reverse().join("/")}`;
  }

  /** The path of `name` inside directory `parent`. */
  childPath(parent: number, name: string): string | undefined {
    const dir = this.pathOf(parent);
    if (dir === undefined) return undefined;
    return dir === "/" ? `/${name}` : `${dir}/${name}`;
  }

  /** Records a lookup the kernel now holds (every entry and create reply). */
  looked(ino: number, parent: number, name: string): void {
    if (ino === ROOT_INO) return;
    let node = this.nodes.get(ino);
    if (!node) {
      node = { links: [], lookups: 0 };
      this.nodes.set(ino, node);
    }
    node.lookups++;
    this.addLink(node, parent, name);
  }

  private addLink(node: Node, parent: number, name: string): void {
    const at = node.links.findIndex((l) => l.parent === parent && l.name === name);
    if (at > 0) node.links.splice(at, 1);
    // The most recent name goes first: it is the one most likely to still exist.
    if (at !== 0) node.links.unshift({ parent, name });
  }

  /** The kernel dropped `count` lookups of `ino`. */
  forget(ino: number, count: number): void {
    const node = this.nodes.get(ino);
    if (!node) return;
    node.lookups -= count;
    if (node.lookups <= 0) this.nodes.delete(ino);
  }

  /** The name `parent`/`name` of `ino` is gone (unlink, rmdir, replaced by rename). */
  unlinked(ino: number, parent: number, name: string): void {
    const node = this.nodes.get(ino);
    if (node) node.links = node.links.filter((l) => l.parent !== parent || l.name !== name);
  }

  /** `ino` moved from one name to another. */
  renamed(ino: number, from: Link, to: Link): void {
    const node = this.nodes.get(ino);
    if (!node) return;
    node.links = node.links.filter((l) => l.parent !== from.parent || l.name !== from.name);
    this.addLink(node, to.parent, to.name);
  }
}
