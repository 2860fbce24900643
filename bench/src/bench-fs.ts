/**
 * The slice of a filesystem the scenarios drive. `Vfs` satisfies it structurally (node:sqlite
 * and Durable Object backends); `fs-target.ts` implements it over node:fs for the tmpfs and
 * disk baselines. No `node:*` imports here: this file is bundled into the bench Worker.
 */

/** What a scenario may call. Paths are absolute inside the target ("/" is its root). */
export interface BenchFs {
  mkdir(path: string, options?: { recursive?: boolean }): void;
  /** Creates or replaces a whole file. */
  writeFile(path: string, data: Uint8Array | string): unknown;
  /** Writes `data` at `offset` of an existing file. */
  pwrite(path: string, offset: number, data: Uint8Array): unknown;
  /** Writes a whole file from a stream of pieces. */
  writeStream(path: string, source: AsyncIterable<Uint8Array>): Promise<unknown>;
  readFile(path: string): Uint8Array;
  stat(path: string): { size: number };
  /** Every entry of a directory. */
  list(path: string): readonly unknown[];
  rename(from: string, to: string): void;
}
