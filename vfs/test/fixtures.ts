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
