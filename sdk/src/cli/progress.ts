/**
 * The transfer progress bar of `put` and `get` (cli-progress on stderr): shown only when stderr
 * is a terminal and the transfer is over a few MB, so pipes and scripts see no bar at all.
 */
import { SingleBar } from "cli-progress";
import type { Progress } from "../node/transfer.ts";
import { formatBytes } from "./output.ts";

/** Transfers smaller than this show no bar. */
export const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;

/** A progress callback and a function that ends the bar; both do nothing when no bar is shown. */
export function progressBar(
  label: string,
  total: number | undefined,
): { onProgress?: Progress; done(): void } {
  if (!process.stderr.isTTY || total === undefined || total < PROGRESS_MIN_BYTES) return { done() {} };
  const bar = new SingleBar({
    stream: process.stderr,
    format: `${label} [{bar}] {percentage}% | {moved} of {size}`,
    hideCursor: true,
    clearOnComplete: false,
    fps: 10,
  });
  bar.start(total, 0, { moved: formatBytes(0), size: formatBytes(total) });
  return {
    onProgress: (done) => bar.update(done, { moved: formatBytes(done) }),
    done: () => bar.stop(),
  };
}
