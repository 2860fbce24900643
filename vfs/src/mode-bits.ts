/**
 * The S_IFMT bits of each file type, as `st_mode` carries them: what the FUSE mount shows the
 * kernel and what the js guest's `fs.Stats.mode` shows a program. Imports nothing, so a guest
 * bundle takes this file alone (`@computer/vfs/mode-bits`).
 */

/** The S_IFMT bits of each file type (the vfs's FileType names). */
export const TYPE_BITS: Record<"file" | "dir" | "symlink" | "fifo" | "socket" | "char" | "block", number> = {
  file: 0o100000,
  dir: 0o040000,
  symlink: 0o120000,
  fifo: 0o010000,
  socket: 0o140000,
  char: 0o020000,
  block: 0o060000,
};
