/**
 * `@computer/sdk/tools` in the shapes agent frameworks take, driving a scripted "agent" (a fixed
 * list of tool calls, no model) on the real fleet: it writes code and its tests, runs the tests
 * (in the container where this machine runs one, else as a js module), fixes the failing test
 * with `edit`, runs them again and publishes the result. Every step's outcome is asserted. The
 * OpenAI-style definitions are checked to be the same tools.
 */
import { type Fleet, startFleet } from "@computer/fleet";
import { containerCapable } from "@computer/fleet/capabilities";
import { ComputerClient } from "@computer/sdk";
import { openaiTools, runOpenAIToolCall, TOOLS, vercelTools } from "@computer/sdk/tools";
import { jsonSchema, tool } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let fleet: Fleet;
let client: ComputerClient;

beforeAll(async () => {
  fleet = await startFleet({ computerdHost: containerCapable });
  client = new ComputerClient({ url: fleet.url, token: fleet.adminToken });
}, 600_000);

afterAll(async () => {
  await fleet?.stop();
});

const CODE = "export function add(a, b) { return a + b; }\nexport function mul(a, b) { return a + b; }\n";
/** The tests, as node:test in the container and as a module that throws in the js runtime. */
const TESTS = containerCapable
  ? 'import test from "node:test";\nimport assert from "node:assert";\nimport { add, mul } from "../src/math.mjs";\n' +
    'test("add", () => assert.equal(add(2, 3), 5));\ntest("mul", () => assert.equal(mul(2, 3), 6));\n'
  : 'import { add, mul } from "/workspace/src/math.mjs";\nexport default () => {\n' +
    '  if (add(2, 3) !== 5) throw new Error("add failed");\n  if (mul(2, 3) !== 6) throw new Error("mul failed");\n  return "ok";\n};\n';

describe("a scripted agent with the Vercel AI SDK tool objects", () => {
  it("writes code, runs its tests, fixes the failing one with edit and publishes", async () => {
    await client.computers.create("agent");
    const computer = client.computer("agent");
    const tools = vercelTools(computer, { jsonSchema });
    // They are what `tool()` of the AI SDK takes and gives back.
    for (const [name, t] of Object.entries(tools)) expect(tool(t), name).toBe(t);
    const run = (name: string, args: Record<string, unknown>) => {
      const t = tools[name];
      if (t === undefined) throw new Error(`no tool ${name}`);
      return t.execute(args, { abortSignal: AbortSignal.timeout(120_000) });
    };
    const test = () =>
      containerCapable
        ? run("exec", { command: "node --test test/math.test.mjs" })
        : run("exec", { runtime: "js", command: TESTS });

    expect(await run("write", { path: "src/math.mjs", content: CODE })).toBe(
      `wrote ${CODE.length} bytes to src/math.mjs`,
    );
    expect(await run("write", { path: "test/math.test.mjs", content: TESTS })).toMatch(/^wrote \d+ bytes/);
    expect(await run("checkpoint", { name: "first-draft" })).toMatch(/^checkpoint first-draft saved/);
    const failing = await test();
    expect(failing).toMatch(/^exit code: 1 /);
    expect(failing).toMatch(containerCapable ? /✖ mul/ : /mul failed/);
    const found = await run("grep", { pattern: "function mul", path: "src" });
    expect(found).toBe("src/math.mjs:2:export function mul(a, b) { return a + b; }");
    const diff = await run("edit", {
      path: "src/math.mjs",
      edits: [{ old: "mul(a, b) { return a + b; }", new: "mul(a, b) { return a * b; }" }],
    });
    expect(diff).toContain(
      "-export function mul(a, b) { return a + b; }\n+export function mul(a, b) { return a * b; }",
    );
    const passing = await test();
    expect(passing).toMatch(/^exit code: 0 \(completed/);
    const published = await run("publish", { path: "src", name: "agent-math" });
    const url = /(http\S+)$/.exec(published)?.[1] ?? "";
    expect(published).toMatch(/^published agent-math@1 \(1 files, 88 bytes\)/);
    const served = await (await fetch(`${url.replace(/\/$/, "")}/math.mjs`)).text();
    expect(served).toContain("return a * b");
    // A mistake comes back as text with its code, as over MCP.
    expect(await run("read", { path: "src/missing.mjs" })).toMatch(/^ENOENT: /);
  }, 300_000);
});

describe("OpenAI-style function definitions", () => {
  it("are the same tools, and a tool call runs through the same runner", async () => {
    const defs = openaiTools();
    expect(defs.map((d) => d.function.name)).toEqual(TOOLS.map((t) => t.name));
    expect(defs[0]).toEqual({
      type: "function",
      function: { name: "read", description: TOOLS[0]?.description, parameters: TOOLS[0]?.inputSchema },
    });
    expect(openaiTools({ readOnly: true }).map((d) => d.function.name)).toEqual([
      "read",
      "ls",
      "find",
      "grep",
    ]);
    await client.computers.create("agent-openai");
    const computer = client.computer("agent-openai");
    const wrote = await runOpenAIToolCall(computer, {
      name: "write",
      arguments: '{"path":"a.txt","content":"hi"}',
    });
    expect(wrote).toEqual({ text: "wrote 2 bytes to a.txt" });
    expect(await runOpenAIToolCall(computer, { name: "read", arguments: "{not json" })).toEqual({
      isError: true,
      text: "EINVAL: the arguments of read are not JSON",
    });
  });
});
