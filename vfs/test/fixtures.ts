/** A sample tree with every kind of node and attribute, shared by the checkpoint, fork and persistence tests. */
import { CHUNK_SIZE } from "../src/limits.ts";
import type { Vfs } from "../src/vfs.ts";
import { bytes } from "./tree.ts";

/** A tree with every kind of node and attribute. */
export function richTree(vfs: Vfs): void {
  vfs.mkdir("/src/lib", { recursive: true, mode: 0o750 });
  vfs.writeFile("/src/main.ts", "console.log('hi');\n");
  vfs.writeFile("/src/lib/big.bin", new Uint8Array(2 * CHUNK_SIZE + 3).fill(5));
  vfs.writeFile("/sparse", "head");
  vfs.truncate("/sparse", 3 * CHUNK_SIZE);
  vfs.pwrite("/sparse", 2 * CHUNK_SIZE + 1, "tail");
  vfs.link("/src/main.ts", "/main-link.ts");
  vfs.symlink("src/lib", "/lib");
  vfs.symlink("/workspace/src/main.ts", "/abs-link");
  vfs.mknod("/fifo", "fifo", 0o600);
  vfs.mknod("/dev-null", "char", 0o666, 0x103);
  vfs.chown("/src/lib", 1000, 1000);
  vfs.chmod("/src/main.ts", 0o4755);
  vfs.utimes("/sparse", { sec: -5, nsec: 7 }, { sec: 2 ** 33, nsec: 9 });
  vfs.setxattr("/src/main.ts", "user.mime", bytes("text/typescript"));
  vfs.setxattr("/lib", "user.on-link", bytes("l"), {}, false);
}

/** Directories of 250-byte names, 40 deep: an absolute path of 10,040 bytes, past PATH_MAX. */
export const DEEP_DIR = `/${Array.from({ length: 40 }, (_, i) => `${String(i).padStart(2, "0")}${"d".repeat(248)}`).join("/")}`;

/** A file, a hard link, a symlink and a fifo below DEEP_DIR (created with its parents). */
export function deepTree(vfs: Vfs): void {
  vfs.mkdir(DEEP_DIR, { recursive: true });
  vfs.writeFile(`${DEEP_DIR}/file`, "deep content");
  vfs.link(`${DEEP_DIR}/file`, `${DEEP_DIR}/hard`);
  vfs.symlink("file", `${DEEP_DIR}/link`);
  vfs.mknod(`${DEEP_DIR}/fifo`, "fifo", 0o644);
}
