/**
 * The shell's scratch tree (everything outside /workspace): an InMemoryFs that keeps the command
 * stubs just-bash writes at every `new Bash` (`/bin/NAME` and `/usr/bin/NAME` for each of its ~80
 * commands, ~160 writes) as a table, and writes a stub into the tree only when something looks
 * past `exists` at it, or at the folders that hold it. Those writes were 1–2 ms of CPU of a new
 * shell isolate's first exec and ~1.2 ms of every later one (docs/BENCH.md, "Shell cold start,
 * fourth round").
 */
import { InMemoryFs } from "just-bash/browser";

/** The folders just-bash writes its command stubs to. */
const STUB_DIRS = ["/bin/", "/usr/bin/"] as const;
/** The folders that hold a stub, and their ancestors: a change of any of them reaches the stubs. */
const STUB_TREE = new Set(["/", "/usr", "/bin", "/usr/bin"]);

/** The stub just-bash writes for command `name` (Bash's registerCommandInternal). */
export function commandStub(name: string): string {
  return `#!/bin/bash\n# Built-in command: ${name}\n`;
}

/** The command a stub at `path` would be for, if `path` is one of the stub folders' direct children. */
function stubName(path: string): string | undefined {
  for (const dir of STUB_DIRS) {
    if (!path.startsWith(dir)) continue;
    const name = path.slice(dir.length);
    return name !== "" && !name.includes("/") ? name : undefined;
  }
  return undefined;
}

/** An absolute path without `//`, `.` or `..` segments and no trailing slash: the table's spelling. */
function plain(path: string): boolean {
  return path.startsWith("/") && !/\/\/|\/\.\.?(\/|$)/.test(path) && (path === "/" || !path.endsWith("/"));
}

/** Whether `path` is a stub folder, one of their ancestors, or inside one (or may be: not plain). */
function inStubTree(path: string): boolean {
  return !plain(path) || STUB_TREE.has(path) || STUB_DIRS.some((dir) => path.startsWith(dir));
}

/** A stub not written yet, and when just-bash asked for it (its mtime once written). */
interface PendingStub {
  content: string;
  at: number;
}

/** InMemoryFs whose command stubs are written on first touch (see the header). */
export class ScratchFs extends InMemoryFs {
  readonly #pending = new Map<string, PendingStub>();

  /** Stubs just-bash asked for that are not in the tree yet (for tests). */
  get pendingStubs(): number {
    return this.#pending.size;
  }

  override writeFileSync(...args: Parameters<InMemoryFs["writeFileSync"]>): void {
    const [path, content, options, metadata] = args;
    const name = stubName(path);
    if (
      name !== undefined &&
      options === undefined &&
      metadata === undefined &&
      content === commandStub(name)
    ) {
      this.#pending.set(path, { content, at: Date.now() });
      return;
    }
    this.#tree(path);
    super.writeFileSync(...args);
  }

  /** Writes the pending stub at `path`, as just-bash would have (mode and all). */
  #writeOne(path: string): void {
    const stub = this.#pending.get(path);
    if (stub === undefined) return;
    this.#pending.delete(path);
    super.writeFileSync(path, stub.content, undefined, { mtime: new Date(stub.at) });
  }

  #writeAll(): void {
    for (const path of [...this.#pending.keys()]) this.#writeOne(path);
  }

  /** Before an operation on the entry at `path`: a stub there is written first. */
  #entry(path: string): void {
    if (this.#pending.size === 0) return;
    if (!plain(path)) this.#writeAll();
    else this.#writeOne(path);
  }

  /** Before an operation that lists or changes the tree at `paths`: every stub it may reach is written. */
  #tree(...paths: string[]): void {
    if (this.#pending.size > 0 && paths.some(inStubTree)) this.#writeAll();
  }

  override async exists(path: string): Promise<boolean> {
    if (this.#pending.has(path)) return true;
    this.#entry(path);
    return super.exists(path);
  }

  override stat(...args: Parameters<InMemoryFs["stat"]>): ReturnType<InMemoryFs["stat"]> {
    this.#entry(args[0]);
    return super.stat(...args);
  }

  override lstat(...args: Parameters<InMemoryFs["lstat"]>): ReturnType<InMemoryFs["lstat"]> {
    this.#entry(args[0]);
    return super.lstat(...args);
  }

  override readFile(...args: Parameters<InMemoryFs["readFile"]>): ReturnType<InMemoryFs["readFile"]> {
    this.#entry(args[0]);
    return super.readFile(...args);
  }

  override readFileBytes(
    ...args: Parameters<InMemoryFs["readFileBytes"]>
  ): ReturnType<InMemoryFs["readFileBytes"]> {
    this.#entry(args[0]);
    return super.readFileBytes(...args);
  }

  override readFileBuffer(
    ...args: Parameters<InMemoryFs["readFileBuffer"]>
  ): ReturnType<InMemoryFs["readFileBuffer"]> {
    this.#entry(args[0]);
    return super.readFileBuffer(...args);
  }

  override readlink(...args: Parameters<InMemoryFs["readlink"]>): ReturnType<InMemoryFs["readlink"]> {
    this.#entry(args[0]);
    return super.readlink(...args);
  }

  override realpath(...args: Parameters<InMemoryFs["realpath"]>): ReturnType<InMemoryFs["realpath"]> {
    this.#entry(args[0]);
    return super.realpath(...args);
  }

  override chmod(...args: Parameters<InMemoryFs["chmod"]>): ReturnType<InMemoryFs["chmod"]> {
    this.#entry(args[0]);
    return super.chmod(...args);
  }

  override utimes(...args: Parameters<InMemoryFs["utimes"]>): ReturnType<InMemoryFs["utimes"]> {
    this.#entry(args[0]);
    return super.utimes(...args);
  }

  override readdir(...args: Parameters<InMemoryFs["readdir"]>): ReturnType<InMemoryFs["readdir"]> {
    this.#tree(args[0]);
    return super.readdir(...args);
  }

  override readdirWithFileTypes(
    ...args: Parameters<InMemoryFs["readdirWithFileTypes"]>
  ): ReturnType<InMemoryFs["readdirWithFileTypes"]> {
    this.#tree(args[0]);
    return super.readdirWithFileTypes(...args);
  }

  override writeFile(...args: Parameters<InMemoryFs["writeFile"]>): ReturnType<InMemoryFs["writeFile"]> {
    this.#tree(args[0]);
    return super.writeFile(...args);
  }

  override appendFile(...args: Parameters<InMemoryFs["appendFile"]>): ReturnType<InMemoryFs["appendFile"]> {
    this.#tree(args[0]);
    return super.appendFile(...args);
  }

  override mkdir(...args: Parameters<InMemoryFs["mkdir"]>): ReturnType<InMemoryFs["mkdir"]> {
    this.#tree(args[0]);
    return super.mkdir(...args);
  }

  override rm(...args: Parameters<InMemoryFs["rm"]>): ReturnType<InMemoryFs["rm"]> {
    this.#tree(args[0]);
    return super.rm(...args);
  }

  override writeFileLazy(...args: Parameters<InMemoryFs["writeFileLazy"]>): void {
    this.#tree(args[0]);
    super.writeFileLazy(...args);
  }

  override mkdirSync(...args: Parameters<InMemoryFs["mkdirSync"]>): void {
    this.#tree(args[0]);
    super.mkdirSync(...args);
  }

  override cp(...args: Parameters<InMemoryFs["cp"]>): ReturnType<InMemoryFs["cp"]> {
    this.#tree(args[0], args[1]);
    return super.cp(...args);
  }

  override mv(...args: Parameters<InMemoryFs["mv"]>): ReturnType<InMemoryFs["mv"]> {
    this.#tree(args[0], args[1]);
    return super.mv(...args);
  }

  // A link or symlink may lead into a stub folder from anywhere: every stub is written first.
  override symlink(target: string, linkPath: string): Promise<void> {
    this.#writeAll();
    return super.symlink(target, linkPath);
  }

  override link(existingPath: string, newPath: string): Promise<void> {
    this.#writeAll();
    return super.link(existingPath, newPath);
  }

  override getAllPaths(): string[] {
    this.#writeAll();
    return super.getAllPaths();
  }
}
