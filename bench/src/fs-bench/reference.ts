/**
 * The reference figures of docs/BENCH.md, shown beside our numbers: the peer daemon
 * (cloudflare/computer's computerd, built from source, measured on a machine like ours, REPS=5,
 * mean ms) with its tmpfs and disk baselines of the same run, and the figures published by
 * cloudflare/computer (Cloudflare Containers standard-2, REPS=3). Only ratios from one run
 * compare across machines; the milliseconds are for scale.
 */

/** One scenario's reference line. */
export interface ReferenceLine {
  /** Peer daemon on a machine like ours: ms, and the tmpfs and disk baselines of that run. */
  peerMs: number;
  peerTmpfsMs: number;
  peerDiskMs: number;
  /** libfuse's C passthrough example over the same disk: ratio to that run's disk. */
  cFuseVsDisk: number;
  /** As published by cloudflare/computer (docs/19_performance.md): computerd ms and its ext4 baseline. */
  publishedMs: number;
  publishedExt4Ms: number;
}

/** Reference lines by scenario name (BENCH.md "Reference figures"). */
export const REFERENCE: Readonly<Record<string, ReferenceLine>> = {
  "create 1000 files": line(1729, 29, 383, 1.3, 560.6, 303.2),
  "stat 1000 files": line(4484, 2269, 3545, 1.3, 1971.9, 2659.3),
  "rm 1000 files": line(2273, 42, 1447, 2.1, 827.7, 1281.8),
  "mkdir tree (10x10x10)": line(3908, 1881, 3842, 1.2, 1597.5, 3034.7),
  "find tree": line(4046, 1919, 3744, 1.1, 1813.6, 4404.2),
  "write 64 MiB": line(289, 52, 33, 3.4, 230.6, 16.8),
  "copy 64 MiB": line(866, 96, 64, 3.4, 1037.2, 39.8),
  "read 64 MiB": line(435, 67, 37, 2.6, 437.5, 25.6),
  "pure read 64 MiB": line(203, 24, 15, 1.25, 263.1, 8.5),
  "pure copy 64 MiB": line(587, 56, 38, 3.6, 852.9, 22.0),
  "overwrite 64 MiB": line(316, 27, 19, 3.7, 272.6, 8.5),
  "git init + commit 100 files": line(861, 39, 430, 1.3, 459.2, 635.4),
  "npm init + tiny install": line(581, 558, 559, 1.06, 598.5, 630.7),
};

function line(
  peerMs: number,
  peerTmpfsMs: number,
  peerDiskMs: number,
  cFuseVsDisk: number,
  publishedMs: number,
  publishedExt4Ms: number,
): ReferenceLine {
  return { peerMs, peerTmpfsMs, peerDiskMs, cFuseVsDisk, publishedMs, publishedExt4Ms };
}

/** The peer's ratio to its own disk baseline (BENCH.md's "peer/disk" column). */
export function peerVsDisk(ref: ReferenceLine): number {
  return ref.peerMs / ref.peerDiskMs;
}

/** The peer's ratio to its own tmpfs baseline. */
export function peerVsTmpfs(ref: ReferenceLine): number {
  return ref.peerMs / ref.peerTmpfsMs;
}
