/**
 * The device the stream plugin redirects statements to: `/dev/.exec/1` and `/dev/.exec/2`
 * (mounted in the shell's filesystem) forward whatever is written to them to the exec's
 * stdout and stderr as it happens. Nothing else exists under the mount.
 */
import type { ByteString, FileContent, FsStat, IFileSystem } from "just-bash";
import { bytesToLatin1 } from "./encoding.ts";
import { fsError } from "./fs-client.ts";
import type { OutputChannel } from "./output-channel.ts";

/** Where the device is mounted. */
export const OUTPUT_DEVICE = "/dev/.exec";

const decoder = new TextDecoder();

function streamOf(path: string): "stdout" | "stderr" | undefined {
  if (path === "/1") return "stdout";
  if (path === "/2") return "stderr";
  return undefined;
}

function text(content: FileContent, encoding: unknown): string {
  if (typeof content !== "string") return decoder.decode(content);
  const options = encoding as { encoding?: unknown } | string | undefined;
  const name = typeof options === "string" ? options : options?.encoding;
  // Bytes in a latin1 string (a pipeline's raw output): decode them as the UTF-8 they are.
  if (name === "binary" || name === "latin1") {
    const bytes = new Uint8Array(content.length);
    for (let i = 0; i < content.length; i++) bytes[i] = content.charCodeAt(i) & 0xff;
    return decoder.decode(bytes);
  }
  return content;
}

/** stdout/stderr as files. */
export class OutputDevice implements IFileSystem {
  readonly #channel: OutputChannel;

  constructor(channel: OutputChannel) {
    this.#channel = channel;
  }

  #stream(path: string, syscall: string): "stdout" | "stderr" {
    const stream = streamOf(path);
    if (stream === undefined) throw fsError("ENOENT", syscall, `${OUTPUT_DEVICE}${path}`);
    return stream;
  }

  #refuse(path: string, syscall: string): never {
    throw fsError("EPERM", syscall, `${OUTPUT_DEVICE}${path}`);
  }

  async writeFile(path: string, content: FileContent, options?: unknown): Promise<void> {
    this.#channel.write(this.#stream(path, "open"), text(content, options));
  }

  async appendFile(path: string, content: FileContent, options?: unknown): Promise<void> {
    this.#channel.write(this.#stream(path, "open"), text(content, options));
  }

  async readFile(path: string): Promise<string> {
    this.#stream(path, "open");
    return "";
  }

  async readFileBytes(path: string): Promise<ByteString> {
    this.#stream(path, "open");
    return bytesToLatin1(new Uint8Array()) as unknown as ByteString;
  }

  async readFileBuffer(path: string): Promise<Uint8Array> {
    this.#stream(path, "open");
    return new Uint8Array();
  }

  async exists(path: string): Promise<boolean> {
    return path === "/" || streamOf(path) !== undefined;
  }

  async stat(path: string): Promise<FsStat> {
    if (path === "/") {
      return {
        isFile: false,
        isDirectory: true,
        isSymbolicLink: false,
        mode: 0o555,
        size: 0,
        mtime: new Date(0),
      };
    }
    this.#stream(path, "stat");
    return {
      isFile: true,
      isDirectory: false,
      isSymbolicLink: false,
      mode: 0o222,
      size: 0,
      mtime: new Date(0),
    };
  }

  lstat(path: string): Promise<FsStat> {
    return this.stat(path);
  }

  async readdir(): Promise<string[]> {
    return ["1", "2"];
  }

  async mkdir(path: string): Promise<void> {
    this.#refuse(path, "mkdir");
  }

  async rm(path: string): Promise<void> {
    this.#refuse(path, "rm");
  }

  async cp(_src: string, dest: string): Promise<void> {
    this.#refuse(dest, "cp");
  }

  async mv(src: string): Promise<void> {
    this.#refuse(src, "rename");
  }

  resolvePath(base: string, path: string): string {
    return path.startsWith("/") ? path : `${base}/${path}`;
  }

  getAllPaths(): string[] {
    return [];
  }

  async chmod(path: string): Promise<void> {
    this.#refuse(path, "chmod");
  }

  async symlink(_target: string, path: string): Promise<void> {
    this.#refuse(path, "symlink");
  }

  async link(_existing: string, path: string): Promise<void> {
    this.#refuse(path, "link");
  }

  async readlink(path: string): Promise<string> {
    throw fsError("EINVAL", "readlink", `${OUTPUT_DEVICE}${path}`);
  }

  async realpath(path: string): Promise<string> {
    return path;
  }

  async utimes(): Promise<void> {
    // Times of a device do not matter.
  }
}
