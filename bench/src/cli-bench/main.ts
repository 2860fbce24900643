/**
 * `npm run bench:cli`: the `computer` CLI's cost on a fresh local fleet. Times `computer --help`
 * (process start to exit, median of 10, with `node -e 0` as the baseline of a bare Node start)
 * and a 64 MiB `put` / `get` of random bytes against `curl` moving the same file through the
 * same API in the same run (median of 3 each). Prints a table and one JSON document.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startFleet } from "@computer/fleet";
import { REPO_ROOT } from "@computer/fleet/wrangler-dev";
import { ComputerClient } from "@computer/sdk";
import { type Summary, summarize } from "../stats.ts";
import { formatMs, formatRatio, renderTable } from "../table-format.ts";

const CLI = join(REPO_ROOT, "node_modules", ".bin", "computer");
const SIZE = 64 * 1024 * 1024;

function timed(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

function repeat(n: number, run: () => void): Summary {
  return summarize(Array.from({ length: n }, () => timed(run)));
}

function check(result: ReturnType<typeof spawnSync>, what: string): void {
  if (result.status !== 0) throw new Error(`${what} exited ${result.status}: ${String(result.stderr)}`);
}

const mibPerSecond = (ms: number) => SIZE / 1024 / 1024 / (ms / 1000);

const dir = mkdtempSync(join(tmpdir(), "cli-bench-"));
const fleet = await startFleet();
try {
  const env = {
    ...process.env,
    PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`,
    COMPUTER_URL: fleet.url,
    COMPUTER_TOKEN: fleet.adminToken,
    COMPUTER_ID: "bench-cli",
    COMPUTER_CONFIG_DIR: join(dir, "config"),
  };
  await new ComputerClient({ url: fleet.url, token: fleet.adminToken }).computers.create("bench-cli", {
    quotaBytes: 4 * 1024 ** 3,
  });
  const file = join(dir, "payload.bin");
  const payload = randomBytes(SIZE);
  writeFileSync(file, payload);
  const cli =
    (...args: string[]) =>
    () =>
      check(spawnSync(CLI, args, { env, cwd: dir }), `computer ${args[0]}`);
  const node = repeat(10, () => check(spawnSync(process.execPath, ["-e", "0"]), "node -e 0"));
  const help = repeat(10, cli("--help"));
  const url = `${fleet.url}/v1/computers/bench-cli/files/payload.bin`;
  const auth = `Authorization: Bearer ${fleet.adminToken}`;
  const curl =
    (...args: string[]) =>
    () =>
      check(spawnSync("curl", ["-sfS", "-H", auth, ...args]), "curl");
  const curlPut = repeat(3, curl("-X", "PUT", "--data-binary", `@${file}`, "-o", "/dev/null", url));
  const cliPut = repeat(3, cli("put", file, "payload.bin"));
  const curlGet = repeat(3, curl("-o", join(dir, "curl.bin"), url));
  const cliGet = repeat(3, cli("get", "payload.bin", join(dir, "cli.bin")));
  for (const copy of ["curl.bin", "cli.bin"]) {
    if (!readFileSync(join(dir, copy)).equals(payload)) throw new Error(`${copy} differs from what was put`);
  }
  const rows = [
    ["node -e 0 (baseline)", formatMs(node.median), "", ""],
    ["computer --help", formatMs(help.median), formatRatio(help.median, node.median), ""],
    ["curl PUT 64 MiB (baseline)", formatMs(curlPut.median), "", mibPerSecond(curlPut.median).toFixed(0)],
    [
      "computer put 64 MiB",
      formatMs(cliPut.median),
      formatRatio(cliPut.median, curlPut.median),
      mibPerSecond(cliPut.median).toFixed(0),
    ],
    ["curl GET 64 MiB (baseline)", formatMs(curlGet.median), "", mibPerSecond(curlGet.median).toFixed(0)],
    [
      "computer get 64 MiB",
      formatMs(cliGet.median),
      formatRatio(cliGet.median, curlGet.median),
      mibPerSecond(cliGet.median).toFixed(0),
    ],
  ];
  process.stdout.write(`${renderTable(["what", "median ms", "vs baseline", "MiB/s"], rows, 1)}\n\n`);
  const curlVersion = execFileSync("curl", ["--version"]).toString().split("\n")[0];
  process.stdout.write(
    `${JSON.stringify({ node: process.version, curl: curlVersion, sizeBytes: SIZE, node0: node, help, curlPut, cliPut, curlGet, cliGet })}\n`,
  );
} finally {
  await fleet.stop();
  rmSync(dir, { recursive: true, force: true });
}
