/**
 * GitFs over the computer's synchronous Vfs, for git running inside the Computer DO. Callers
 * speak guest paths (`/workspace/...`, as the runtimes see them); the vfs root is `/workspace`.
 */
import { type FileType, FsError, type Stat, toMs, type Vfs, WORKSPACE } from "@computer/vfs";
import type { GitFileType, GitFs, GitStat } from "./git-fs.ts";

function gitType(type: FileType): GitFileType {
  return type === "file" || type === "dir" || type === "symlink" ? type : "other";
}

/** A vfs Stat as GitStat. */
export function toGitStat(stat: Stat): GitStat {
  return {
    type: gitType(stat.type),
    mode: stat.mode,
    size: stat.size,
    ino: stat.ino,
    uid: stat.uid,
    gid: stat.gid,
    mtimeMs: toMs(stat.mtime),
    ctimeMs: toMs(stat.ctime),
  };
}

/**
 * Maps a guest path to a vfs path: `/workspace` is `/`, `/workspace/a` is `/a`. Anything
 * outside the workspace is ENOENT (the computer has nothing else).
 */
export function vfsPath(guestPath: string, syscall: string): string {
  if (guestPath === WORKSPACE || guestPath === `${WORKSPACE}/`) return "/";
  if (guestPath.startsWith(`${WORKSPACE}/`)) return guestPath.slice(WORKSPACE.length);
  throw new FsError("ENOENT", syscall, guestPath, "outside the workspace");
}

/** GitFs over `vfs`. Each call is one synchronous vfs operation (atomic on its own). */
export function vfsGitFs(vfs: Vfs): GitFs {
  return {
    readFile: async (path) => vfs.readFile(vfsPath(path, "open")),
    writeFile: async (path, data, mode) => {
      vfs.writeFile(vfsPath(path, "open"), data, mode === undefined ? {} : { mode });
    },
    mkdir: async (path) => {
      vfs.mkdir(vfsPath(path, "mkdir"));
    },
    rmdir: async (path) => vfs.rmdir(vfsPath(path, "rmdir")),
    unlink: async (path) => vfs.unlink(vfsPath(path, "unlink")),
    stat: async (path) => toGitStat(vfs.stat(vfsPath(path, "stat"))),
    lstat: async (path) => toGitStat(vfs.lstat(vfsPath(path, "lstat"))),
    readdir: async (path) => vfs.list(vfsPath(path, "scandir")).map((entry) => entry.name),
    readlink: async (path) => vfs.readlink(vfsPath(path, "readlink")),
    symlink: async (target, path) => vfs.symlink(target, vfsPath(path, "symlink")),
    chmod: async (path, mode) => vfs.chmod(vfsPath(path, "chmod"), mode),
  };
}
