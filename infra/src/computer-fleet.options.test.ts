/**
 * ComputerFleet under Pulumi mocks with every option of the Worker set: a custom domain (and,
 * in a second fleet, a route), a given admin token and API token (both kept secret), container
 * sizing, a registry image, a bucket location; and inputs that fail validation.
 */
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, describe, expect, it } from "vitest";
import {
  ACCOUNT,
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

const ZONE = "fedcba9876543210fedcba9876543210";
const TOKEN = "t".repeat(40);

type Fleet = typeof import("./computer-fleet.ts").ComputerFleet;
let ComputerFleet: Fleet;
let domainFleet: InstanceType<Fleet>;
let routeFleet: InstanceType<Fleet>;
let found: Map<string, Recorded>;

beforeAll(async () => {
  await installMocks();
  ({ ComputerFleet } = await import("./computer-fleet.ts"));
  domainFleet = new ComputerFleet(
    "acme",
    {
      accountId: ACCOUNT,
      apiToken: pulumi.secret("cf-api-token"),
      workerName: "acme-computers",
      bucketName: "acme-files",
      bucketLocation: "weur",
      instanceType: "standard-3",
      maxInstances: 7,
      containerImage: "registry.example.com/acme/computerd:1",
      adminToken: pulumi.secret(TOKEN),
      customDomain: { hostname: "Computers.Acme.example", zoneId: ZONE },
    },
    { transformations: [recordParents] },
  );
  routeFleet = new ComputerFleet(
    "routed",
    { accountId: ACCOUNT, route: { pattern: "acme.example/computers/*", zoneId: ZONE } },
    { transformations: [recordParents] },
  );
  found = await waitFor([
    "acme-artifacts",
    "acme-worker",
    "acme-worker-lifecycle",
    "acme-workers-dev",
    "acme-domain",
    "routed-worker",
    "routed-route",
    "routed-workers-dev",
  ]);
});

const get = (name: string): Recorded => pick(found, name);

describe("ComputerFleet with a custom domain and given secrets", () => {
  it("makes no random token when one is given, and parents every child to the fleet", () => {
    expect(registeredWithPrefix("acme-")).toEqual([
      "acme-artifacts",
      "acme-domain",
      "acme-worker",
      "acme-worker-lifecycle",
      "acme-workers-dev",
    ]);
    for (const name of registeredWithPrefix("acme-")) expect(get(name).parent, name).toBe(domainFleet);
  });

  it("creates the bucket with its name and location", () => {
    expect(get("acme-artifacts").inputs).toEqual({
      accountId: ACCOUNT,
      name: "acme-files",
      location: "weur",
    });
  });

  it("binds the custom domain to the Worker in its zone, lower-cased", () => {
    expect(get("acme-domain").type).toBe("cloudflare:index/workersCustomDomain:WorkersCustomDomain");
    expect(get("acme-domain").inputs).toEqual({
      accountId: ACCOUNT,
      hostname: "computers.acme.example",
      service: "acme-computers",
      zoneId: ZONE,
    });
  });

  it("turns workers.dev off when the fleet has a domain", () => {
    expect(get("acme-workers-dev").inputs).toMatchObject({ scriptName: "acme-computers", enabled: false });
  });

  it("passes the API token and the admin token to wrangler as secrets", () => {
    const env = get("acme-worker").inputs.environment;
    expect(isSecretInput(env)).toBe(true);
    expect(plain(env)).toEqual({
      CLOUDFLARE_ACCOUNT_ID: ACCOUNT,
      CLOUDFLARE_API_TOKEN: "cf-api-token",
      COMPUTER_ADMIN_TOKEN: TOKEN,
      WRANGLER_SEND_METRICS: "false",
    });
    expect(isSecretInput(get("acme-worker-lifecycle").inputs.environment)).toBe(true);
  });

  it("sizes the container application and uses the registry image", () => {
    const script = String(get("acme-worker").inputs.create);
    expect(script).toContain('"image": "registry.example.com/acme/computerd:1"');
    expect(script).toContain('"instance_type": "standard-3"');
    expect(script).toContain('"max_instances": 7');
    expect(script).toContain('"name": "acme-computers-computer"');
    expect(script).toContain('"bucket_name": "acme-files"');
    expect(script).not.toContain("image_build_context");
    expect(script).not.toContain(TOKEN);
  });

  it("answers on the custom domain and keeps the given token secret", async () => {
    expect((await resolveOutput(domainFleet.url)).value).toBe("https://computers.acme.example");
    expect(await resolveOutput(domainFleet.adminToken)).toEqual({ value: TOKEN, secret: true });
  });
});

describe("ComputerFleet with a route", () => {
  it("adds the route to the zone and turns workers.dev off", () => {
    expect(get("routed-route").type).toBe("cloudflare:index/workersRoute:WorkersRoute");
    expect(get("routed-route").parent).toBe(routeFleet);
    expect(get("routed-route").inputs).toEqual({
      zoneId: ZONE,
      pattern: "acme.example/computers/*",
      script: "routed",
    });
    expect(get("routed-workers-dev").inputs).toMatchObject({ enabled: false });
  });

  it("answers on the route's host and path", async () => {
    expect((await resolveOutput(routeFleet.url)).value).toBe("https://acme.example/computers");
  });
});

describe("ComputerFleet input validation", () => {
  it("refuses a custom domain together with a route at once", () => {
    expect(
      () =>
        new ComputerFleet("both", {
          accountId: ACCOUNT,
          customDomain: { hostname: "a.example" },
          route: { pattern: "a.example/*", zoneId: ZONE },
        }),
    ).toThrow(/not both/);
  });

  it.each([
    ["accountId", { accountId: "nope" }],
    ["workerName", { workerName: "Bad_Name" }],
    ["bucketName", { bucketName: "x" }],
    ["instanceType", { instanceType: "huge" as "lite" }],
    ["maxInstances", { maxInstances: 0 }],
    ["adminToken", { adminToken: "short" }],
    ["customDomain", { customDomain: { hostname: "https://a.example" } }],
    ["route.pattern", { route: { pattern: "a.example", zoneId: ZONE } }],
    ["route.zoneId", { route: { pattern: "a.example/*", zoneId: "zone" } }],
    ["benchmark.host", { benchmark: { host: "a b", user: "u", privateKey: SSH_KEY } }],
    ["benchmark.user", { benchmark: { host: "h.example", user: "Root", privateKey: SSH_KEY } }],
    ["benchmark.port", { benchmark: { host: "h.example", user: "u", privateKey: SSH_KEY, port: 0 } }],
    ["benchmark.privateKey", { benchmark: { host: "h.example", user: "u", privateKey: "ssh-rsa AAA" } }],
    [
      "benchmark.workDir",
      { benchmark: { host: "h.example", user: "u", privateKey: SSH_KEY, workDir: "rel" } },
    ],
  ])("throws at construction on a bad %s, registering nothing", (input, args) => {
    const before = registeredWithPrefix("bad");
    expect(() => new ComputerFleet("bad", { accountId: ACCOUNT, ...args })).toThrow(
      `ComputerFleet ${input}:`,
    );
    expect(registeredWithPrefix("bad")).toEqual(before);
  });
});
