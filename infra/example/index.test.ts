/**
 * The example stack runs under Pulumi mocks with Pulumi.example.yaml's values: the program
 * loads, reads its config keys, and exports the fleet's outputs.
 */
import { readFileSync } from "node:fs";
import * as pulumi from "@pulumi/pulumi";
import { beforeAll, expect, it } from "vitest";
import { installMocks, resolveOutput, waitFor } from "../test/pulumi-mocks.ts";

/** The `config:` values of Pulumi.example.yaml (plain `key: value` lines only). */
function exampleConfig(): Record<string, string> {
  const text = readFileSync(new URL("../../Pulumi.example.yaml", import.meta.url), "utf8");
  const values: Record<string, string> = {};
  for (const match of text.matchAll(/^ {2}([a-z]+:[A-Za-z]+): "?([^"\n#]*?)"?\s*$/gm)) {
    const [, key, value] = match;
    if (key !== undefined && value !== undefined && value !== "") values[key] = value;
  }
  return values;
}

let stack: Record<string, pulumi.Output<unknown>>;
const config = exampleConfig();

beforeAll(async () => {
  await installMocks();
  pulumi.runtime.setAllConfig({ ...config, "computer:adminToken": "e".repeat(40) }, ["computer:adminToken"]);
  stack = (await import("./index.ts")) as unknown as Record<string, pulumi.Output<unknown>>;
  await waitFor(["computer", "computer-artifacts", "computer-worker", "computer-domain"]);
});

it("reads the example config", () => {
  expect(config["computer:accountId"]).toMatch(/^[0-9a-f]{32}$/);
  expect(config["computer:customDomain"]).toBe("computer.example.com");
});

it("exports the fleet's outputs", async () => {
  expect((await resolveOutput(stack.url as pulumi.Output<string>)).value).toBe(
    "https://computer.example.com",
  );
  expect((await resolveOutput(stack.workerName as pulumi.Output<string>)).value).toBe(
    config["computer:workerName"],
  );
  expect(await resolveOutput(stack.adminToken as pulumi.Output<string>)).toEqual({
    value: "e".repeat(40),
    secret: true,
  });
  expect(
    (await resolveOutput(stack.benchmarkReportKey as pulumi.Output<string | undefined>)).value,
  ).toBeUndefined();
});

it("reads only config keys that Pulumi.yaml declares, and the example stack sets only declared keys", () => {
  const project = readFileSync(new URL("../../Pulumi.yaml", import.meta.url), "utf8");
  const declared = new Set([...project.matchAll(/^ {2}([A-Za-z]+):$/gm)].map((match) => match[1]));
  const program = readFileSync(new URL("./index.ts", import.meta.url), "utf8");
  const read = [...program.matchAll(/\bconfig\.(?:get|require)\w*(?:<\w+>)?\("(\w+)"\)/g)].map(
    (match) => match[1],
  );
  expect(read.length).toBeGreaterThan(10);
  for (const key of read) expect(declared, `computer:${key}`).toContain(key);
  const example = readFileSync(new URL("../../Pulumi.example.yaml", import.meta.url), "utf8");
  for (const match of example.matchAll(/^ {2}(?:# )?computer:(\w+):/gm))
    expect(declared, match[0]).toContain(match[1]);
});
