/**
 * The generated deploy config: worker/wrangler.jsonc's bindings, migrations and container class
 * carried over, the fleet's names, account, bucket and sizing laid over them, paths absolute.
 */
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  canonicalJson,
  configHash,
  type DeployConfigOptions,
  deployConfig,
  readWranglerConfig,
  type WranglerConfig,
} from "./wrangler-config.ts";

const REPO = resolve(import.meta.dirname, "../..");
const BASE_PATH = `${REPO}/worker/wrangler.jsonc`;
const base = readWranglerConfig(BASE_PATH);

const OPTIONS: DeployConfigOptions = {
  basePath: BASE_PATH,
  workerName: "acme-fleet",
  accountId: "0123456789abcdef0123456789abcdef",
  bucketName: "acme-fleet-artifacts",
  instanceType: "standard-2",
  maxInstances: 50,
  workersDev: false,
};

describe("deployConfig over worker/wrangler.jsonc", () => {
  const config = deployConfig(base, OPTIONS);

  it("names the Worker and account and points main at the real entry", () => {
    expect(config.name).toBe("acme-fleet");
    expect(config.account_id).toBe(OPTIONS.accountId);
    expect(config.main).toBe(`${REPO}/worker/src/index.ts`);
    expect(config.workers_dev).toBe(false);
    expect(config.preview_urls).toBe(false);
    expect(config).not.toHaveProperty("$schema");
    expect(config).not.toHaveProperty("dev");
  });

  it("keeps every binding, the SQLite migrations and the admin-token secret of the base", () => {
    expect(config.durable_objects).toEqual(base.durable_objects);
    expect(config.durable_objects?.bindings.map((b) => b.class_name)).toContain("Computer");
    expect(config.migrations).toEqual(base.migrations);
    expect(config.migrations?.[0]?.new_sqlite_classes).toContain("Computer");
    expect(config.worker_loaders).toEqual([{ binding: "LOADER" }]);
    expect(config.secrets).toEqual({ required: ["COMPUTER_ADMIN_TOKEN"] });
    expect(config.compatibility_date).toBe(base.compatibility_date);
    expect(config.compatibility_flags).toEqual(base.compatibility_flags);
  });

  it("binds ARTIFACTS to the fleet's bucket", () => {
    expect(config.r2_buckets).toEqual([{ binding: "ARTIFACTS", bucket_name: "acme-fleet-artifacts" }]);
  });

  it("sizes the container application and builds the image from the repository", () => {
    expect(config.containers).toEqual([
      {
        class_name: "Computer",
        name: "acme-fleet-computer",
        image: `${REPO}/images/computerd/Dockerfile`,
        image_build_context: REPO,
        instance_type: "standard-2",
        max_instances: 50,
      },
    ]);
  });

  it("makes a custom build's folders absolute", () => {
    const withBuild: WranglerConfig = {
      ...base,
      build: { command: "node scripts/b.ts", watch_dir: "src/guest" },
    };
    expect(deployConfig(withBuild, OPTIONS).build).toEqual({
      command: "node scripts/b.ts",
      cwd: `${REPO}/worker`,
      watch_dir: `${REPO}/worker/src/guest`,
    });
  });

  it("uses a registry image as is, without a build context", () => {
    const image = "registry.example.com/acme/computerd:1";
    const entry = deployConfig(base, { ...OPTIONS, image }).containers?.[0];
    expect(entry?.image).toBe(image);
    expect(entry).not.toHaveProperty("image_build_context");
  });

  it("refuses a base without the artifact bucket or a container class", () => {
    expect(() => deployConfig({ ...base, r2_buckets: [] }, OPTIONS)).toThrow(/ARTIFACTS/);
    expect(() => deployConfig({ ...base, containers: [] }, OPTIONS)).toThrow(/containers/);
  });
});

describe("configHash", () => {
  it("ignores key order and changes with any value", () => {
    const config = deployConfig(base, OPTIONS);
    const reordered = JSON.parse(canonicalJson(config)) as WranglerConfig;
    expect(configHash(reordered)).toBe(configHash(config));
    expect(configHash(deployConfig(base, { ...OPTIONS, maxInstances: 51 }))).not.toBe(configHash(config));
  });
});
