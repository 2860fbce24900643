/**
 * The benchmark host job as data, shared by `make bench-host` (./main.ts, here) and
 * ComputerFleet's `benchmark` input (infra/src/benchmark-script.ts, over SSH), so both run the
 * same `docker compose` command: fs-bench in the computerd image (bench/compose.yaml) against
 * the FUSE mount, tmpfs and the bind-mounted disk directory, writing only its JSON.
 * No imports: infra loads this file on its own.
 */

/** The compose file, relative to the directory holding bench/ (the repository, or the job's workDir). */
export const COMPOSE_FILE = "bench/compose.yaml";
export const FS_BENCH_SERVICE = "fs-bench";

/** fs-bench's arguments inside the container: the mounted paths of compose.yaml; only JSON (the image has no chart library). */
export function fsBenchArgs(quick: boolean): string[] {
  return [
    "--disk-dir",
    "/nvme",
    "--tmpfs-dir",
    "/dev/shm",
    "--out",
    "/results",
    "--no-report",
    ...(quick ? ["--quick"] : []),
  ];
}

/** `docker compose` arguments of the job (what the docker-compose package's `run` spawns). */
export function composeRunArgs(quick: boolean): string[] {
  return ["-f", COMPOSE_FILE, "run", "--rm", "-T", FS_BENCH_SERVICE, ...fsBenchArgs(quick)];
}

/** The variables compose.yaml reads: the image to run and the disk directory to bind at /nvme. */
export function composeEnv(image: string, diskDir: string): Record<string, string> {
  return { COMPUTERD_IMAGE: image, BENCH_DISK_DIR: diskDir };
}
