/**
 * The shell's whole filesystem: an in-memory scratch tree (/, /bin, /tmp, /home/user, /dev,
 * /proc — what a fresh container has outside its workspace) with the computer's files mounted
 * at /workspace and the output device at /dev/.exec. The synchronous `mkdirSync` /
 * `writeFileSync` just-bash uses to lay out /bin command stubs and /dev go to the scratch tree,
 * which writes the stubs only when first touched (scratch-fs.ts).
 */
import type { FileContent, IFileSystem } from "just-bash";
import { MountableFs } from "just-bash/browser";
import { ScratchFs } from "./scratch-fs.ts";

/** MountableFs whose synchronous setup calls reach the in-memory base. */
export class ShellFs extends MountableFs {
  readonly #scratch: ScratchFs;

  constructor(mounts: { mountPoint: string; filesystem: IFileSystem }[]) {
    const scratch = new ScratchFs();
    for (const dir of ["/bin", "/usr/bin", "/tmp", "/home/user", "/dev"])
      scratch.mkdirSync(dir, { recursive: true });
    super({ base: scratch, mounts });
    this.#scratch = scratch;
  }

  /** Creates a directory in the scratch tree (just-bash's layout). */
  mkdirSync(path: string, options?: { recursive?: boolean }): void {
    this.#scratch.mkdirSync(path, options);
  }

  /** Writes a file in the scratch tree (just-bash's /bin stubs, /dev and /proc files). */
  writeFileSync(path: string, content: FileContent): void {
    this.#scratch.writeFileSync(path, content);
  }
}
