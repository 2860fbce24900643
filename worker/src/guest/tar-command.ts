/**
 * The shell's `tar`: just-bash's browser build, the one the shell guest runs, has none (its tar
 * needs Node), so the guest adds one over the shell's filesystem with modern-tar (the archive
 * format; just-bash's own tar uses it too) and the isolate's CompressionStream for gzip. Create,
 * extract and list, gzip, -C, --strip-components, verbose; archives are held in memory, as
 * every file of the shell is (tar-options.ts for the command line).
 *
 * Extraction stays under its directory: a member's leading "/" is dropped and a member with a
 * ".." component is skipped with an error, as GNU tar does.
 */
import type { Command, ExecResult, IFileSystem, ResolvedCommandContext } from "just-bash";
import { type ParsedTarEntryWithData, packTar, type TarEntry, unpackTar } from "modern-tar";
import { parseTarArgs, TAR_USAGE, type TarOptions } from "./tar-options.ts";

/** Bytes as a latin1 string: how just-bash carries binary stdin and stdout. */
function latin1(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}

function fromLatin1(text: string): Uint8Array {
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

async function through(
  bytes: Uint8Array,
  transform: CompressionStream | DecompressionStream,
): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b;
}

function message(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return /ENOENT|no such file/i.test(text) ? "Cannot stat: No such file or directory" : text;
}

/** One run of `tar`: its output and errors as they accumulate. */
class TarRun {
  readonly #fs: IFileSystem;
  readonly #options: TarOptions;
  readonly #base: string;
  stdout = "";
  stderr = "";
  failed = false;
  #warnedLeading = false;

  constructor(ctx: ResolvedCommandContext, options: TarOptions) {
    this.#fs = ctx.fs;
    this.#options = options;
    this.#base = options.directory === undefined ? ctx.cwd : ctx.fs.resolvePath(ctx.cwd, options.directory);
  }

  error(text: string): void {
    this.stderr += `tar: ${text}\n`;
    this.failed = true;
  }

  /** A name processed (-v): on stderr when the archive itself goes to stdout. */
  verbose(name: string): void {
    if (!this.#options.verbose) return;
    if (this.#options.mode === "create" && this.#options.file === "-") this.stderr += `${name}\n`;
    else this.stdout += `${name}\n`;
  }

  /** -C's directory must exist, as GNU tar's chdir wants it. */
  async enter(): Promise<boolean> {
    if (this.#options.directory === undefined) return true;
    const stat = await this.#fs.stat(this.#base).catch(() => undefined);
    if (stat?.isDirectory) return true;
    this.error(`${this.#options.directory}: Cannot open: No such file or directory`);
    return false;
  }

  async create(): Promise<Uint8Array> {
    const entries: TarEntry[] = [];
    for (const operand of this.#options.operands) {
      // GNU tar's member names: no leading "/" or "../" (it says so once, as here).
      const stripped = operand.replace(/^(\/|\.\.\/)+/, "");
      if (stripped !== operand && !this.#warnedLeading) {
        this.#warnedLeading = true;
        this.stderr += `tar: Removing leading \`${operand.slice(0, operand.length - stripped.length)}' from member names\n`;
      }
      const name = stripped.replace(/\/+$/, "") || ".";
      await this.#add(this.#fs.resolvePath(this.#base, operand), name, entries);
    }
    const archive = await packTar(entries);
    return this.#options.gzip ? through(archive, new CompressionStream("gzip")) : archive;
  }

  async #add(path: string, name: string, entries: TarEntry[]): Promise<void> {
    let stat: Awaited<ReturnType<IFileSystem["lstat"]>>;
    try {
      stat = await this.#fs.lstat(path);
    } catch (err) {
      this.error(`${name}: ${message(err)}`);
      return;
    }
    const common = { mode: stat.mode & 0o7777, mtime: stat.mtime };
    if (stat.isSymbolicLink) {
      const linkname = await this.#fs.readlink(path);
      entries.push({ header: { name, size: 0, type: "symlink", linkname, ...common } });
      this.verbose(name);
    } else if (stat.isDirectory) {
      entries.push({ header: { name: `${name}/`, size: 0, type: "directory", ...common } });
      this.verbose(`${name}/`);
      for (const child of (await this.#fs.readdir(path)).sort()) {
        await this.#add(`${path}/${child}`, name === "." ? child : `${name}/${child}`, entries);
      }
    } else {
      const body = await this.#fs.readFileBuffer(path);
      entries.push({ header: { name, size: body.byteLength, type: "file", ...common }, body });
      this.verbose(name);
    }
  }

  async read(archive: Uint8Array): Promise<ParsedTarEntryWithData[]> {
    const bytes =
      this.#options.gzip || isGzip(archive)
        ? await through(archive, new DecompressionStream("gzip"))
        : archive;
    const wanted = this.#options.operands.map((m) => m.replace(/^\/+/, "").replace(/\/+$/, ""));
    const entries = await unpackTar(bytes, { strict: true });
    const matched = new Set<string>();
    const kept = entries.filter((entry) => {
      if (wanted.length === 0) return true;
      const name = entry.header.name.replace(/\/+$/, "");
      const hit = wanted.find((w) => name === w || name.startsWith(`${w}/`));
      if (hit !== undefined) matched.add(hit);
      return hit !== undefined;
    });
    for (const w of wanted) if (!matched.has(w)) this.error(`${w}: Not found in archive`);
    return kept;
  }

  list(entries: ParsedTarEntryWithData[]): void {
    for (const { header } of entries) {
      if (!this.#options.verbose) {
        this.stdout += `${header.name}\n`;
        continue;
      }
      const type = header.type === "directory" ? "d" : header.type === "symlink" ? "l" : "-";
      const mode = (header.mode ?? 0).toString(8).padStart(4, "0");
      const link = header.type === "symlink" ? ` -> ${header.linkname ?? ""}` : "";
      this.stdout += `${type} ${mode} ${String(header.size).padStart(8)} ${header.name}${link}\n`;
    }
  }

  async extract(entries: ParsedTarEntryWithData[]): Promise<void> {
    for (const { header, data } of entries) {
      let parts = header.name.split("/").filter((p) => p !== "" && p !== ".");
      if (header.name.startsWith("/") && !this.#warnedLeading) {
        this.#warnedLeading = true;
        this.stderr += "tar: Removing leading `/' from member names\n";
      }
      if (parts.includes("..")) {
        this.error(`${header.name}: Member name contains '..'`);
        continue;
      }
      parts = parts.slice(this.#options.stripComponents);
      if (parts.length === 0) continue;
      const path = `${this.#base === "/" ? "" : this.#base}/${parts.join("/")}`;
      const parent = path.slice(0, path.lastIndexOf("/")) || "/";
      try {
        await this.#fs.mkdir(parent, { recursive: true });
        if (header.type === "directory") await this.#fs.mkdir(path, { recursive: true });
        else if (header.type === "symlink") {
          await this.#fs.rm(path, { force: true });
          await this.#fs.symlink(header.linkname ?? "", path);
        } else if (header.type === "link") {
          const target = (header.linkname ?? "").split("/").filter((p) => p !== "" && p !== ".");
          await this.#fs.rm(path, { force: true });
          await this.#fs.link(`${this.#base}/${target.slice(this.#options.stripComponents).join("/")}`, path);
        } else if (header.type === "file" || header.type === undefined) {
          await this.#fs.writeFile(path, data ?? new Uint8Array(0));
        } else {
          this.error(`${header.name}: Cannot extract a ${header.type}`);
          continue;
        }
        if (header.type !== "symlink" && header.type !== "link" && header.mode !== undefined)
          await this.#fs.chmod(path, header.mode & 0o7777);
        if (header.type === "file" && header.mtime !== undefined)
          await this.#fs.utimes(path, header.mtime, header.mtime);
      } catch (err) {
        this.error(`${header.name}: Cannot extract: ${message(err)}`);
        continue;
      }
      this.verbose(header.name);
    }
  }
}

async function tar(args: string[], ctx: ResolvedCommandContext): Promise<ExecResult> {
  const parsed = parseTarArgs(args);
  if (parsed.ok === "help") return { stdout: TAR_USAGE, stderr: "", exitCode: 0 };
  if (!parsed.ok)
    return {
      stdout: "",
      stderr: `tar: ${parsed.error}\nTry 'tar --help' for more information.\n`,
      exitCode: 2,
    };
  const { options } = parsed;
  const run = new TarRun(ctx, options);
  try {
    if (!(await run.enter())) return finish(run);
    if (options.mode === "create") {
      const archive = await run.create();
      if (options.file === "-") {
        run.stdout = latin1(archive);
        return { ...finish(run), stdoutKind: "bytes", stdoutEncoding: "binary" };
      }
      await ctx.fs.writeFile(ctx.fs.resolvePath(ctx.cwd, options.file), archive);
      return finish(run);
    }
    const archive =
      options.file === "-"
        ? typeof ctx.stdin === "string"
          ? fromLatin1(ctx.stdin)
          : new Uint8Array(0)
        : await ctx.fs.readFileBuffer(ctx.fs.resolvePath(ctx.cwd, options.file));
    const entries = await run.read(archive);
    if (options.mode === "list") run.list(entries);
    else await run.extract(entries);
  } catch (err) {
    run.error(
      options.file !== "-" && /ENOENT|no such file/i.test(String(err))
        ? `${options.file}: Cannot open: No such file or directory`
        : `${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return finish(run);
}

function finish(run: TarRun): ExecResult {
  if (run.failed) run.stderr += "tar: Exiting with failure status due to previous errors\n";
  return { stdout: run.stdout, stderr: run.stderr, exitCode: run.failed ? 2 : 0 };
}

/**
 * `tar` for the shell guest's Bash: a plain Command (what just-bash's defineCommand builds), since
 * this module is loaded lazily and a runtime import of just-bash from here would make the bundler
 * wrap all of just-bash in a lazy init too (one 1.2 MB function, compiled whole at the start).
 */
export function tarCommand(): Command {
  return { name: "tar", trusted: true, execute: tar };
}
