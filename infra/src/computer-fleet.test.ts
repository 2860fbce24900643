/**
 * ComputerFleet under Pulumi mocks, default shape (workers.dev): every child's type, name,
 * parent and inputs — the bucket, the random admin token, the Worker's lifecycle and deploy
 * commands (generated config with bindings, migrations and container sizing; secrets marked
 * secret; triggers) and the workers.dev subdomain — and the component's outputs.
 */
import type * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ACCOUNT,
  DEPLOY_STDOUT,
  installMocks,
  isSecretInput,
  pick,
  plain,
  RANDOM_TOKEN,
  type Recorded,
  recordParents,
  registeredWithPrefix,
  resolveOutput,
  waitFor,
} from "../test/pulumi-mocks.ts";

const REPO = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The wrangler config embedded in a deploy script's here-document. */
function embeddedConfig(script: string): Record<string, unknown> {
  const match = /<<'COMPUTER_WRANGLER_CONFIG_EOF'\n([\s\S]*?)\nCOMPUTER_WRANGLER_CONFIG_EOF\n/.exec(script);
  if (match?.[1] === undefined) throw new Error("no embedded config");
  return JSON.parse(match[1]) as Record<string, unknown>;
}

let fleet: pulumi.ComponentResource & {
  url: pulumi.Output<string>;
  workerName: pulumi.Output<string>;
  bucketName: pulumi.Output<string>;
  adminToken: pulumi.Output<string>;
  benchmarkReportKey: pulumi.Output<string | undefined>;
};
let children: Map<string, Recorded>;

const NAMES = [
  "fleet-admin-token",
  "fleet-artifacts",
  "fleet-worker-lifecycle",
  "fleet-worker",
  "fleet-workers-dev",
];

beforeAll(async () => {
  await installMocks();
  const { ComputerFleet } = await import("./computer-fleet.ts");
  fleet = new ComputerFleet("fleet", { accountId: ACCOUNT }, { transformations: [recordParents] });
  children = await waitFor(["fleet", ...NAMES]);
});

const child = (name: string): Recorded => pick(children, name);

describe("ComputerFleet (workers.dev)", () => {
  it("is a computer:index:ComputerFleet whose children are exactly these, each parented to it", () => {
    expect(child("fleet").type).toBe("computer:index:ComputerFleet");
    expect(registeredWithPrefix("fleet-")).toEqual([...NAMES].sort());
    const types = Object.fromEntries(NAMES.map((name) => [name, child(name).type]));
    expect(types).toEqual({
      "fleet-admin-token": "random:index/randomPassword:RandomPassword",
      "fleet-artifacts": "cloudflare:index/r2Bucket:R2Bucket",
      "fleet-worker-lifecycle": "command:local:Command",
      "fleet-worker": "command:local:Command",
      "fleet-workers-dev": "cloudflare:index/workersScriptSubdomain:WorkersScriptSubdomain",
    });
    for (const name of NAMES) expect(child(name).parent, name).toBe(fleet);
  });

  it("makes a random 48-character admin token", () => {
    expect(child("fleet-admin-token").inputs).toEqual({ length: 48, special: false });
  });

  it("creates the artifact bucket named after the Worker", () => {
    expect(child("fleet-artifacts").inputs).toEqual({ accountId: ACCOUNT, name: "fleet-artifacts" });
  });

  it("deploys the generated config with wrangler, the admin token a secret in the environment", () => {
    const { inputs } = child("fleet-worker");
    expect(inputs.dir).toBe(REPO);
    const script = String(inputs.create);
    expect(script).toContain(`node ${REPO}/node_modules/wrangler/bin/wrangler.js deploy --config`);
    expect(script).toContain("--secrets-file");
    expect(script).not.toContain(RANDOM_TOKEN);
    expect(inputs).not.toHaveProperty("delete");
    expect(isSecretInput(inputs.environment)).toBe(true);
    expect(plain(inputs.environment)).toEqual({
      CLOUDFLARE_ACCOUNT_ID: ACCOUNT,
      COMPUTER_ADMIN_TOKEN: RANDOM_TOKEN,
      WRANGLER_SEND_METRICS: "false",
    });
  });

  it("generates the config: bindings, SQLite migrations, container application, bucket, workers.dev", () => {
    const config = embeddedConfig(String(child("fleet-worker").inputs.create));
    expect(config).toMatchObject({
      name: "fleet",
      account_id: ACCOUNT,
      main: `${REPO}/worker/src/index.ts`,
      workers_dev: true,
      durable_objects: {
        bindings: [
          { name: "COMPUTER", class_name: "Computer" },
          { name: "REGISTRY", class_name: "Registry" },
        ],
      },
      migrations: [{ tag: "v1", new_sqlite_classes: ["Computer", "Registry"] }],
      worker_loaders: [{ binding: "LOADER" }],
      r2_buckets: [{ binding: "ARTIFACTS", bucket_name: "fleet-artifacts" }],
      secrets: { required: ["COMPUTER_ADMIN_TOKEN"] },
      containers: [
        {
          class_name: "Computer",
          name: "fleet-computer",
          image: `${REPO}/images/computerd/Dockerfile`,
          image_build_context: REPO,
          instance_type: "standard-1",
          max_instances: 20,
        },
      ],
    });
  });

  it("re-runs the deploy only on a new config, bundle or image hash", () => {
    const triggers = child("fleet-worker").inputs.triggers;
    expect(Array.isArray(triggers) && triggers.length).toBe(3);
    for (const trigger of triggers as unknown[]) expect(trigger).toMatch(/^[0-9a-f]{64}$/);
  });

  it("leaves deleting the Worker to a lifecycle command replaced only with its name or account", () => {
    const { inputs } = child("fleet-worker-lifecycle");
    expect(inputs.create).toBe("true");
    expect(String(inputs.delete)).toMatch(/wrangler\.js delete --name fleet --force$/);
    expect(inputs.triggers).toEqual(["fleet", ACCOUNT]);
    expect(plain(inputs.environment)).toEqual({
      CLOUDFLARE_ACCOUNT_ID: ACCOUNT,
      WRANGLER_SEND_METRICS: "false",
    });
  });

  it("enables workers.dev through the provider, without preview URLs", () => {
    expect(child("fleet-workers-dev").inputs).toEqual({
      accountId: ACCOUNT,
      scriptName: "fleet",
      enabled: true,
      previewsEnabled: false,
    });
  });

  it("outputs the workers.dev URL wrangler printed, the names, and the admin token as a secret", async () => {
    expect(DEPLOY_STDOUT).toContain("https://fleet.team.workers.dev");
    expect(await resolveOutput(fleet.url)).toEqual({
      value: "https://fleet.team.workers.dev",
      secret: false,
    });
    expect((await resolveOutput(fleet.workerName)).value).toBe("fleet");
    expect((await resolveOutput(fleet.bucketName)).value).toBe("fleet-artifacts");
    expect(await resolveOutput(fleet.adminToken)).toEqual({ value: RANDOM_TOKEN, secret: true });
    expect((await resolveOutput(fleet.benchmarkReportKey)).value).toBeUndefined();
  });
});
