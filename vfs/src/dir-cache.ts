/**
 * Directories by name, in memory: which inode a directory entry names when it is a directory,
 * and each directory's own (parent, name). A path walk passes the same directories again and
 * again (`.git/objects/ab/...`, `node_modules/x/lib/...`), and naming a hard-linked file's paths
 * walks up to the root (directoryPath): with this cache neither costs a statement per directory.
 *
 * Only for a database nothing but this vfs changes, where the owner also tells it about every
 * rollback (the mount's mirror: BatchedSql.onRollback; the Computer DO: a transaction that
 * throws). Entries are added only from rows read or just inserted (createNodes' directories),
 * and the Store drops everything when a directory's entry goes (rmdir, a rename or swap of a
 * directory, rm -r, a checkpoint restore, an import), when an operation fails (its rollback
 * may undo a directory it created) and when the owner says a rollback happened.
 */

/** A directory's place: its parent directory and its name there. */
export interface DirectoryName {
  parent: number;
  name: string;
}

/** Past this many directories the cache starts over (a bound, not an eviction policy). */
const MAX_DIRECTORIES = 200_000;

export class DirectoryCache {
  private readonly inos = new Map<string, number>();
  private readonly names = new Map<number, DirectoryName>();

  /** The directory inode entry (parent, name) names, if known. */
  step(parent: number, name: string): number | undefined {
    return this.inos.get(`${parent}/${name}`);
  }

  /** Where directory `ino` is, if known. */
  nameOf(ino: number): DirectoryName | undefined {
    return this.names.get(ino);
  }

  /** Entry (parent, name) names directory `ino` (just read from the database, or inserted). */
  remember(parent: number, name: string, ino: number): void {
    if (this.names.size >= MAX_DIRECTORIES) this.clear();
    this.inos.set(`${parent}/${name}`, ino);
    this.names.set(ino, { parent, name });
  }

  /** True when entry (parent, name) is a directory the cache knows. */
  has(parent: number, name: string): boolean {
    return this.inos.has(`${parent}/${name}`);
  }

  /** Forgets everything (a directory went or moved, or a change was rolled back). */
  clear(): void {
    this.inos.clear();
    this.names.clear();
  }
}
