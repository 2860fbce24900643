/**
 * Node-only transfers between the local disk and a computer: a file or a whole folder each
 * way, streamed (never held in memory), with a byte-count callback for progress displays.
 */
import { createReadStream } from "node:fs";
import { type FileHandle, mkdir, open, readdir, readlink, rename, rm, stat, symlink } from "node:fs/promises";
import { dirname, join, posix } from "node:path";
import { Readable } from "node:stream";
import type { Computer } from "../computer.ts";
import type { WrittenFile } from "../contract/types.ts";
import type { Signal } from "../files.ts";

/** Called with the bytes moved so far and the total (when known). */
export type Progress = (done: number, total: number | undefined) => void;

/** Options of a transfer. */
export interface TransferOptions extends Signal {
  onProgress?: Progress;
}

function counting(
  total: number | undefined,
  onProgress: Progress | undefined,
): TransformStream<Uint8Array, Uint8Array> {
  let done = 0;
  return new TransformStream({
    transform(chunk, controller) {
      done += chunk.byteLength;
      onProgress?.(done, total);
      controller.enqueue(chunk);
    },
  });
}

/** Streams a web stream of bytes to `computer`'s `remote`, counting what passes. */
export function uploadStream(
  computer: Computer,
  body: ReadableStream<Uint8Array>,
  remote: string,
  options: TransferOptions & { total?: number; mode?: string | number } = {},
): Promise<WrittenFile> {
  const { onProgress, total, ...rest } = options;
  return computer.files.write(remote, body.pipeThrough(counting(total, onProgress)), rest);
}

/** Uploads local file `local` as `remote` (keeping its permission bits). */
export async function uploadFile(
  computer: Computer,
  local: string,
  remote: string,
  options: TransferOptions = {},
): Promise<WrittenFile> {
  const info = await stat(local);
  const body = Readable.toWeb(createReadStream(local)) as ReadableStream<Uint8Array>;
  return uploadStream(computer, body, remote, { ...options, total: info.size, mode: info.mode & 0o7777 });
}

/** How many bytes a download gathers before it writes them (one writev). */
const WRITE_BATCH_BYTES = 1024 * 1024;

/** Writes `chunks` (`size` bytes in all) at the file's position, however short the writes. */
async function writeAll(out: FileHandle, chunks: Uint8Array[], size: number): Promise<void> {
  let written = (await out.writev(chunks)).bytesWritten;
  if (written === size) return;
  const rest = Buffer.concat(chunks).subarray(written);
  while (written < size) written += (await out.write(rest, written - (size - rest.byteLength))).bytesWritten;
}

/**
 * Downloads `remote` into local file `local`: written to a temporary name beside it and renamed
 * when complete, so a failed download leaves no half file. The body's chunks (~64 KiB each) go
 * to the file a WRITE_BATCH_BYTES batch per writev: no web-to-Node stream bridge and no write per
 * chunk, which cost more than the download itself (docs/BENCH.md). The signal aborts the fetch,
 * which ends the read.
 */
export async function downloadFile(
  computer: Computer,
  remote: string,
  local: string,
  options: TransferOptions = {},
): Promise<number> {
  const file = await computer.files.open(remote, options);
  const partial = `${local}.part-${process.pid}`;
  const out = await open(partial, "w");
  try {
    const reader = file.body.getReader();
    let batch: Uint8Array[] = [];
    let batched = 0;
    let done = 0;
    for (let chunk = await reader.read(); ; chunk = await reader.read()) {
      if (!chunk.done) {
        batch.push(chunk.value);
        batched += chunk.value.byteLength;
      }
      if (batched > 0 && (chunk.done || batched >= WRITE_BATCH_BYTES)) {
        await writeAll(out, batch, batched);
        done += batched;
        options.onProgress?.(done, file.size);
        [batch, batched] = [[], 0];
      }
      if (chunk.done) break;
    }
    await out.close();
    await rename(partial, local);
  } catch (err) {
    await out.close().catch(() => undefined);
    await rm(partial, { force: true });
    throw err;
  }
  return file.size;
}

/** Uploads every file under local folder `local` into `remote` (created), answering the count. */
export async function uploadTree(
  computer: Computer,
  local: string,
  remote: string,
  options: TransferOptions = {},
): Promise<number> {
  await computer.files.mkdir(remote, {
    recursive: true,
    ...(options.signal ? { signal: options.signal } : {}),
  });
  let count = 0;
  for (const entry of await readdir(local, { withFileTypes: true })) {
    const from = join(local, entry.name);
    const to = posix.join(remote, entry.name);
    if (entry.isDirectory()) count += await uploadTree(computer, from, to, options);
    else if (entry.isFile()) {
      await uploadFile(computer, from, to, options);
      count++;
    } else if (entry.isSymbolicLink()) {
      await computer.files.symlink(await readlink(from), to, options);
      count++;
    }
  }
  return count;
}

/** Downloads every file under `remote` into local folder `local` (created), answering the count. */
export async function downloadTree(
  computer: Computer,
  remote: string,
  local: string,
  options: TransferOptions = {},
): Promise<number> {
  await mkdir(local, { recursive: true });
  let count = 0;
  for await (const entry of computer.files.entries(remote, options)) {
    const from = posix.join(remote, entry.name);
    const to = join(local, entry.name);
    if (entry.type === "dir") count += await downloadTree(computer, from, to, options);
    else if (entry.type === "file") {
      await mkdir(dirname(to), { recursive: true });
      await downloadFile(computer, from, to, options);
      count++;
    } else if (entry.type === "symlink") {
      await rm(to, { force: true });
      await symlink(await computer.files.readlink(from, options), to);
      count++;
    }
  }
  return count;
}
