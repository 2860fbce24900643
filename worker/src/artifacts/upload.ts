/**
 * Copying workspace files into the ARTIFACTS bucket: which files a published path stands for
 * (a file, or every regular file under a directory; symlinks and special files are skipped),
 * and streaming each one from the vfs into R2 while hashing it — no file is held in memory.
 */
import { createHash } from "node:crypto";
import type { Vfs } from "@computer/vfs";
import { ApiError } from "../http/errors.ts";
import { contentTypeFor } from "./content-type.ts";
import type { ManifestFile } from "./manifest.ts";

/** Most files one artifact may hold. */
export const MAX_ARTIFACT_FILES = 10_000;
/** Largest file: R2's single-upload limit (5 GiB) less a margin. */
export const MAX_ARTIFACT_FILE_BYTES = 5 * 1024 ** 3 - 5 * 1024 ** 2;
/** Files uploaded at the same time. */
const PARALLEL_UPLOADS = 4;

/** One file to publish. */
export interface SourceFile {
  /** Where it is in the vfs. */
  vfsPath: string;
  /** Where it goes in the artifact. */
  path: string;
  size: number;
}

/** What a published path stands for. */
export interface Source {
  type: "file" | "dir";
  files: SourceFile[];
}

function byBytes(a: SourceFile, b: SourceFile): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

function checkSize(file: SourceFile): void {
  if (file.size > MAX_ARTIFACT_FILE_BYTES) {
    throw new ApiError("EFBIG", `file larger than ${MAX_ARTIFACT_FILE_BYTES} bytes`, { path: file.vfsPath });
  }
}

/**
 * The files `path` (a vfs path) stands for. 404 ENOENT if it does not exist, 400 EINVAL if it
 * is neither a regular file nor a directory with at least one file, 413 EFBIG past the limits.
 */
export function collectSource(vfs: Vfs, path: string): Source {
  const stat = vfs.stat(path);
  if (stat.type === "file") {
    const file = { vfsPath: path, path: path.slice(path.lastIndexOf("/") + 1), size: stat.size };
    checkSize(file);
    return { type: "file", files: [file] };
  }
  if (stat.type !== "dir") throw new ApiError("EINVAL", `cannot publish a ${stat.type}`, { path });
  const files: SourceFile[] = [];
  const walk = (dir: string, prefix: string): void => {
    for (const entry of vfs.list(dir)) {
      const child = dir === "/" ? `/${entry.name}` : `${dir}/${entry.name}`;
      const inside = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.type === "dir") walk(child, inside);
      else if (entry.type === "file") {
        const file = { vfsPath: child, path: inside, size: entry.size };
        checkSize(file);
        files.push(file);
        if (files.length > MAX_ARTIFACT_FILES) {
          throw new ApiError("EFBIG", `more than ${MAX_ARTIFACT_FILES} files to publish`, { path });
        }
      }
    }
  };
  walk(path, "");
  if (files.length === 0) throw new ApiError("EINVAL", "the directory has no files to publish", { path });
  return { type: "dir", files: files.sort(byBytes) };
}

/** Streams one file from the vfs to `key`, hashing it on the way; returns its manifest entry. */
export async function uploadFile(
  bucket: R2Bucket,
  vfs: Vfs,
  file: SourceFile,
  key: string,
): Promise<ManifestFile> {
  const contentType = contentTypeFor(file.path);
  const hash = createHash("sha256");
  const options = { httpMetadata: { contentType } };
  if (file.size === 0) {
    await bucket.put(key, new Uint8Array(0), options);
  } else {
    // R2 needs to know a streamed body's length up front: a FixedLengthStream carries it. The
    // vfs stream yields exactly the size it started with, even if the file changes meanwhile.
    const { readable, writable } = new FixedLengthStream(file.size);
    const hashing = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        hash.update(chunk);
        controller.enqueue(chunk);
      },
    });
    const pump = vfs.readStream(file.vfsPath).pipeThrough(hashing).pipeTo(writable);
    await Promise.all([pump, bucket.put(key, readable, options)]);
  }
  return { path: file.path, size: file.size, sha256: hash.digest("hex"), contentType };
}

/** Uploads `files` a few at a time; calls `started` with each key before its upload (for cleanup on failure). */
export async function uploadAll(
  bucket: R2Bucket,
  vfs: Vfs,
  files: SourceFile[],
  keyOf: (path: string) => string,
  started: (key: string) => void,
): Promise<ManifestFile[]> {
  const out: ManifestFile[] = new Array(files.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < files.length) {
      const index = next++;
      const file = files[index];
      if (file === undefined) return;
      const key = keyOf(file.path);
      started(key);
      out[index] = await uploadFile(bucket, vfs, file, key);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARALLEL_UPLOADS, files.length) }, worker));
  return out;
}
