/** The file type mknod(2) asks for, from the type bits of its mode. */
import type { FileType } from "@computer/vfs";

const S_IFMT = 0o170000;

/** The FileType of mknod's type bits (0 means a regular file). */
export function typeOfMode(mode: number): FileType | undefined {
  switch (mode & S_IFMT) {
    case 0:
    case 0o100000:
      return "file";
    case 0o010000:
      return "fifo";
    case 0o020000:
      return "char";
    case 0o060000:
      return "block";
    case 0o140000:
      return "socket";
    default:
      return undefined;
  }
}
