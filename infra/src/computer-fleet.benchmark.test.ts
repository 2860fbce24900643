/**
 * ComputerFleet under Pulumi mocks with a benchmark host: the image built and saved locally,
 * folders prepared, image and bench/ copied over SSH, fs-bench run there with docker compose,
 * and its report put into the fleet's bucket — each child's type, name, parent and inputs, the
 * SSH key kept secret.
 */

import { composeRunArgs } from "@computer/bench/compose-job";
import type * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ACCOUNT,
  BENCH_REPORT,
  IMAGE_TAG,
  installMocks,
  isSecretInput,
  pick,
  plain,
  type Recorded,
  recordParents,
  registeredWithPrefix,
  resolveOutput,
  SSH_KEY,
  waitFor,
} from "../test/pulumi-mocks.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const BENCH = [
  "lab-bench-image",
  "lab-bench-prepare",
  "lab-bench-image-copy",
  "lab-bench-sources",
  "lab-bench-run",
  "lab-bench-report",
  "lab-bench-html",
];

let fleet: pulumi.ComponentResource & {
  benchmarkReportKey: pulumi.Output<string | undefined>;
  benchmarkReportHtmlKey: pulumi.Output<string | undefined>;
};
let found: Map<string, Recorded>;

let benchArchive: typeof import("./benchmark-job.ts").benchArchive;

beforeAll(async () => {
  await installMocks();
  const { ComputerFleet } = await import("./computer-fleet.ts");
  ({ benchArchive } = await import("./benchmark-job.ts"));
  fleet = new ComputerFleet(
    "lab",
    {
      accountId: ACCOUNT,
      benchmark: {
        host: "nvme.example.com",
        user: "bench",
        privateKey: SSH_KEY,
        diskDir: "/mnt/nvme0/bench",
      },
    },
    { transformations: [recordParents] },
  );
  found = await waitFor(BENCH);
});

const get = (name: string): Recorded => pick(found, name);

describe("ComputerFleet benchmark job", () => {
  it("adds exactly these children, typed and parented to the fleet", () => {
    expect(registeredWithPrefix("lab-bench")).toEqual([...BENCH].sort());
    expect(Object.fromEntries(BENCH.map((name) => [name, get(name).type]))).toEqual({
      "lab-bench-image": "command:local:Command",
      "lab-bench-prepare": "command:remote:Command",
      "lab-bench-image-copy": "command:remote:CopyToRemote",
      "lab-bench-sources": "command:remote:CopyToRemote",
      "lab-bench-run": "command:remote:Command",
      "lab-bench-report": "command:local:Command",
      "lab-bench-html": "command:local:Command",
    });
    for (const name of BENCH) expect(get(name).parent, name).toBe(fleet);
  });

  it("connects over SSH with the key as a secret", () => {
    for (const name of ["lab-bench-prepare", "lab-bench-image-copy", "lab-bench-sources", "lab-bench-run"]) {
      const connection = plain(get(name).inputs.connection) as Record<string, unknown>;
      expect(connection.host, name).toBe("nvme.example.com");
      expect(connection.user, name).toBe("bench");
      expect(connection.port, name).toBe(22);
      expect(isSecretInput(connection.privateKey) || isSecretInput(get(name).inputs.connection), name).toBe(
        true,
      );
      expect(plain(connection.privateKey), name).toBe(SSH_KEY);
    }
  });

  it("builds the image with make's script and saves it, re-run on image source changes", () => {
    const { inputs } = get("lab-bench-image");
    expect(String(inputs.create)).toContain(`tag=$(${REPO}/images/build-image.sh)`);
    expect(String(inputs.create)).toContain(
      `docker save "$tag" | gzip -1 > ${REPO}/images/.cache/computerd-image.tar.gz`,
    );
    expect(inputs.triggers).toEqual([expect.stringMatching(/^[0-9a-f]{64}$/)]);
  });

  it("prepares the folders and copies the image and bench/ with its compose file", () => {
    expect(get("lab-bench-prepare").inputs.create).toBe(
      "set -eu\nmkdir -p /var/tmp/computer-bench/bench/results /mnt/nvme0/bench",
    );
    expect(get("lab-bench-image-copy").inputs.remotePath).toBe(
      "/var/tmp/computer-bench/computerd-image.tar.gz",
    );
    expect(get("lab-bench-sources").inputs.remotePath).toBe("/var/tmp/computer-bench/bench");
    expect(get("lab-bench-sources").inputs.source).toMatchObject({ __pulumiArchive: true });
  });

  it("archives bench/src, bench/fixtures, bench/package.json and bench/compose.yaml", async () => {
    const assets = await benchArchive(`${REPO}/bench`).assets;
    const paths = await Promise.all(
      Object.entries(assets).map(async ([name, asset]) => {
        const path = "path" in asset ? await asset.path : undefined;
        return [name, path];
      }),
    );
    expect(Object.fromEntries(paths)).toEqual({
      src: `${REPO}/bench/src`,
      fixtures: `${REPO}/bench/fixtures`,
      "package.json": `${REPO}/bench/package.json`,
      "compose.yaml": `${REPO}/bench/compose.yaml`,
    });
  });

  it("runs fs-bench in the saved image on the NVMe directory", () => {
    const script = String(get("lab-bench-run").inputs.create);
    expect(script).toContain("gunzip -c computerd-image.tar.gz | docker load >&2");
    expect(script).toContain(
      'if docker compose version >/dev/null 2>&1; then compose="docker compose"; else compose=docker-compose; fi',
    );
    // The arguments of `make bench-host` (bench/src/host/compose-job.ts), not a copy of them.
    expect(script).toContain(
      `COMPUTERD_IMAGE=${IMAGE_TAG} BENCH_DISK_DIR=/mnt/nvme0/bench $compose ${composeRunArgs(false).join(" ")} >&2`,
    );
    expect(composeRunArgs(false).slice(0, 6).join(" ")).toBe("-f bench/compose.yaml run --rm -T fs-bench");
    expect(composeRunArgs(false)).toContain("--no-report");
    expect(get("lab-bench-run").inputs.triggers).toHaveLength(2);
  });

  it("puts the report into the fleet's bucket under a content-addressed key", async () => {
    const { inputs } = get("lab-bench-report");
    expect(inputs.stdin).toBe(BENCH_REPORT);
    const key = (await resolveOutput(fleet.benchmarkReportKey)).value;
    expect(key).toMatch(/^bench\/lab\/fs-[0-9a-f]{16}\.json$/);
    expect(String(inputs.create)).toContain(`r2 object put lab-artifacts/${key} --pipe --remote`);
    expect(plain(inputs.environment)).toEqual({
      CLOUDFLARE_ACCOUNT_ID: ACCOUNT,
      WRANGLER_SEND_METRICS: "false",
    });
  });

  it("renders the report's HTML page where Pulumi runs and puts it beside the JSON", async () => {
    const { inputs } = get("lab-bench-html");
    expect(inputs.stdin).toBe(BENCH_REPORT);
    const json = (await resolveOutput(fleet.benchmarkReportKey)).value;
    const html = (await resolveOutput(fleet.benchmarkReportHtmlKey)).value;
    expect(html).toBe(String(json).replace(/\.json$/, ".html"));
    expect(String(inputs.create)).toContain(
      `node ${REPO}/bench/src/report/render-main.ts - --out - | node ${REPO}/node_modules/wrangler/bin/wrangler.js r2 object put lab-artifacts/${html} --pipe --remote --content-type text/html`,
    );
    expect(plain(inputs.environment)).toEqual(plain(get("lab-bench-report").inputs.environment));
  });
});
