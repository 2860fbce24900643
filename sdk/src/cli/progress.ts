/**
 * The transfer progress bar of `put` and `get` (cli-progress on stderr): shown only when stderr
 * is a terminal and the transfer is over a few MB, so pipes and scripts see no bar at all.
 * cli-progress is loaded only for a terminal, so a piped transfer and `--help` never pay for it.
 */
import type { SingleBar } from "cli-progress";
import type { Progress } from "../node/transfer.ts";
import { formatBytes } from "./output.ts";

/** Transfers smaller than this show no bar. */
export const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;

/**
 * A progress callback and a function that ends the bar. The bar starts at the first count whose
 * total (the file's size, known once the transfer opened) is at least PROGRESS_MIN_BYTES.
 */
export async function progressBar(label: string): Promise<{ onProgress?: Progress; done(): void }> {
  if (!process.stderr.isTTY) return { done() {} };
  const { SingleBar } = await import("cli-progress");
  let bar: SingleBar | undefined;
  return {
    onProgress: (done, total) => {
      if (bar === undefined) {
        if (total === undefined || total < PROGRESS_MIN_BYTES) return;
        bar = new SingleBar({
          stream: process.stderr,
          format: `${label} [{bar}] {percentage}% | {moved} of {size}`,
          hideCursor: true,
          clearOnComplete: false,
          fps: 10,
        });
        bar.start(total, 0, { moved: formatBytes(0), size: formatBytes(total) });
      }
      bar.update(done, { moved: formatBytes(done) });
    },
    done: () => bar?.stop(),
  };
}
