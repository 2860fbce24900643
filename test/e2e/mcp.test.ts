/**
 * The computer's MCP server on the real local fleet, driven by the official MCP client SDK over
 * Streamable HTTP and over the CLI's stdio bridge: the tool list (all for rw, the read-only ones
 * for ro), every tool and each bad-input case as an isError result with its POSIX code, files as
 * resources, tokens of another computer refused, output caps for a 50 MB file and a command
 * printing 100 MB, and `edit` atomic under concurrent edits and a racing container write.
 */
import { type Fleet, startFleet } from "@computer/fleet";
import { containerCapable } from "@computer/fleet/capabilities";
import { type Computer, ComputerClient } from "@computer/sdk";
import { DEFAULT_MAX_OUTPUT_CHARS } from "@computer/sdk/tools";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, connectHttp, connectStdio } from "./mcp-client.ts";

const ALL = ["read", "write", "edit", "ls", "find", "grep", "exec", "publish", "checkpoint", "restore"];
const READ_ONLY = ["read", "ls", "find", "grep"];

let fleet: Fleet;
let admin: ComputerClient;
let box: Computer;
let mcp: Client;

beforeAll(async () => {
  fleet = await startFleet({ computerdHost: containerCapable });
  admin = new ComputerClient({ url: fleet.url, token: fleet.adminToken });
  await admin.computers.create("mcp-box");
  box = admin.computer("mcp-box");
  const { token } = await box.tokens.create({ scope: "rw" });
  mcp = await connectHttp(fleet.url, "mcp-box", token);
}, 180_000);

afterAll(async () => {
  await mcp?.close();
  await fleet?.stop();
});

describe("MCP over Streamable HTTP", () => {
  it("lists every tool with a description and a JSON schema", async () => {
    const { tools } = await mcp.listTools();
    expect(tools.map((t) => t.name)).toEqual(ALL);
    for (const tool of tools) {
      expect(tool.description?.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema).toMatchObject({ type: "object", properties: expect.any(Object) });
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(READ_ONLY.includes(tool.name));
    }
  });

  it("write, read (whole, a numbered line range, a binary file) and their mistakes", async () => {
    expect(await call(mcp, "write", { path: "src/app.js", content: "one\ntwo\nthree\n" })).toEqual({
      text: "wrote 14 bytes to src/app.js",
      isError: false,
    });
    expect((await call(mcp, "read", { path: "src/app.js" })).text).toBe("one\ntwo\nthree\n");
    expect((await call(mcp, "read", { path: "/workspace/src/app.js", offset: 2, limit: 1 })).text).toBe(
      "     2\ttwo\n",
    );
    await box.files.write("bin.dat", new Uint8Array([1, 0, 2, 3]));
    expect((await call(mcp, "read", { path: "bin.dat" })).text).toBe(
      "bin.dat: binary file (application/octet-stream), 4 bytes (not shown; read with base64: true, or inspect it with exec)",
    );
    expect((await call(mcp, "read", { path: "bin.dat", base64: true })).text).toBe("AQACAw==");
    await box.files.write(
      "pixel.png",
      new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
    );
    expect((await call(mcp, "read", { path: "pixel.png" })).text).toMatch(
      /^pixel\.png: binary file \(image\/png\), 12 bytes/,
    );
    const missing = await call(mcp, "read", { path: "nope.txt" });
    expect(missing.isError).toBe(true);
    expect(missing.text).toMatch(/^ENOENT: /);
    const bad = await call(mcp, "read", { path: 7 });
    expect(bad).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^EINVAL: bad arguments for read/),
    });
    expect((await call(mcp, "frob", {})).text).toMatch(/^EINVAL: no tool 'frob'/);
  });

  it("edit applies exact replacements atomically, answers a diff, and refuses ambiguous or stale edits", async () => {
    await box.files.write("e.txt", "alpha\nbeta\nbeta\ngamma\n");
    const ok = await call(mcp, "edit", {
      path: "e.txt",
      edits: [
        { old: "alpha", new: "ALPHA" },
        { old: "gamma", new: "GAMMA" },
      ],
    });
    expect(ok.isError).toBe(false);
    expect(ok.text).toContain("-alpha\n+ALPHA");
    expect(ok.text).toContain("+GAMMA");
    const ambiguous = await call(mcp, "edit", {
      path: "e.txt",
      edits: [
        { old: "ALPHA", new: "x" },
        { old: "beta", new: "b" },
      ],
    });
    expect(ambiguous).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^EINVAL: edit 2 of 2: old text matches 2 times/),
    });
    const stale = await call(mcp, "edit", { path: "e.txt", edits: [{ old: "alpha", new: "again" }] });
    expect(stale).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^EINVAL: edit 1 of 1: old text not found/),
    });
    expect(await box.files.readText("e.txt")).toBe("ALPHA\nbeta\nbeta\nGAMMA\n");
    await call(mcp, "edit", { path: "e.txt", edits: [{ old: "beta", new: "B", replaceAll: true }] });
    expect(await box.files.readText("e.txt")).toBe("ALPHA\nB\nB\nGAMMA\n");
  });

  it("ls, find and grep (on the vfs's own search), and a bad regex", async () => {
    await box.files.write("src/lib/util.js", "export const add = (a, b) => a + b;\n// TODO tests\n");
    await box.files.write("src/lib/util.test.js", "import { add } from './util.js';\n");
    const sizes = [
      (await box.files.head("src/lib/util.js")).size,
      (await box.files.head("src/lib/util.test.js")).size,
    ];
    expect((await call(mcp, "ls", { path: "src", depth: 2 })).text).toBe(
      `app.js  14 bytes\nlib/  dir\n  util.js  ${sizes[0]} bytes\n  util.test.js  ${sizes[1]} bytes`,
    );
    expect((await call(mcp, "find", { pattern: "**/*.test.js" })).text).toBe("src/lib/util.test.js");
    expect((await call(mcp, "find", { path: "src", pattern: "*", type: "dir" })).text).toBe("src/lib");
    expect((await call(mcp, "grep", { pattern: "TODO \\w+", glob: "**/*.js" })).text).toBe(
      "src/lib/util.js:2:// TODO tests",
    );
    expect(
      (await call(mcp, "grep", { pattern: "add", path: "src", glob: "lib/*.test.js", context: 0 })).text,
    ).toBe("src/lib/util.test.js:1:import { add } from './util.js';");
    expect(await call(mcp, "grep", { pattern: "(" })).toMatchObject({
      isError: true,
      text: expect.stringMatching(/^EINVAL: invalid regular expression/),
    });
  });

  it("exec answers the exit code and the output; checkpoint and restore undo; publish answers the link", async () => {
    const ran = await call(mcp, "exec", {
      runtime: "shell",
      command: "echo hi; echo oops >&2; exit 3",
      cwd: "src",
    });
    expect(ran).toEqual({
      text: expect.stringMatching(/^exit code: 3 \(failed, \d+ ms\)\nhi\noops\n$/),
      isError: false,
    });
    const js = await call(mcp, "exec", { runtime: "js", command: "export default () => 40 + 2" });
    expect(js.text).toMatch(/^exit code: 0 \(completed, \d+ ms\)\nvalue: 42\n$/);
    expect((await call(mcp, "checkpoint", { name: "before" })).text).toMatch(/^checkpoint before saved/);
    await call(mcp, "write", { path: "src/app.js", content: "broken" });
    expect((await call(mcp, "restore", { name: "before" })).text).toMatch(/^restored checkpoint before/);
    expect(await box.files.readText("src/app.js")).toBe("one\ntwo\nthree\n");
    expect((await call(mcp, "restore", { name: "never" })).text).toMatch(/^ENOENT: /);
    await box.files.write("site/index.html", "<p>mcp</p>");
    const published = await call(mcp, "publish", { path: "site", name: "mcp-site" });
    const url = /(http\S+)$/.exec(published.text)?.[1] ?? "";
    expect(await (await fetch(url)).text()).toBe("<p>mcp</p>");
  });

  it("files are resources: listed and read as computer://<id>/<path>", async () => {
    const { resources } = await mcp.listResources();
    expect(resources.map((r) => r.uri)).toContain("computer://mcp-box/src/lib/util.js");
    const read = await mcp.readResource({ uri: "computer://mcp-box/src/app.js" });
    expect(read.contents).toEqual([
      { uri: "computer://mcp-box/src/app.js", mimeType: "text/plain", text: "one\ntwo\nthree\n" },
    ]);
    const templates = await mcp.listResourceTemplates();
    expect(templates.resourceTemplates[0]?.uriTemplate).toBe("computer://mcp-box/{+path}");
  });
});

describe("tokens", () => {
  it("an ro token sees only the read-only tools, and a write is an isError result", async () => {
    const { token } = await box.tokens.create({ scope: "ro" });
    const ro = await connectHttp(fleet.url, "mcp-box", token);
    try {
      expect((await ro.listTools()).tools.map((t) => t.name)).toEqual(READ_ONLY);
      expect((await call(ro, "read", { path: "src/app.js" })).text).toBe("one\ntwo\nthree\n");
      expect(await call(ro, "write", { path: "src/app.js", content: "x" })).toMatchObject({
        isError: true,
        text: expect.stringMatching(/^EFORBIDDEN: /),
      });
      expect(await box.files.readText("src/app.js")).toBe("one\ntwo\nthree\n");
    } finally {
      await ro.close();
    }
  });

  it("a token of another computer, or none, is refused before any tool", async () => {
    await admin.computers.create("mcp-other");
    const { token } = await admin.computer("mcp-other").tokens.create({ scope: "rw" });
    await expect(connectHttp(fleet.url, "mcp-box", token)).rejects.toThrow(/403|EFORBIDDEN/);
    await expect(connectHttp(fleet.url, "mcp-box", "nope")).rejects.toThrow(/401|EUNAUTHORIZED/);
  });
});

describe("output caps", () => {
  it("a 50 MB file is answered up to the cap with a note on how to read on", async () => {
    const line = `${"x".repeat(99)}\n`;
    await box.files.write("big.log", line.repeat(500_000));
    const read = await call(mcp, "read", { path: "big.log" });
    expect(read.text.length).toBeLessThan(DEFAULT_MAX_OUTPUT_CHARS + 200);
    expect(read.text).toMatch(
      /\[\.\.\. cut at 20000 characters of 50000000 bytes; read on with offset=\d+ \.\.\.\]$/,
    );
    const range = await call(mcp, "read", { path: "big.log", offset: 400_000, limit: 2 });
    expect(range.text).toBe(`400000\t${line}400001\t${line}`);
  }, 120_000);

  it.skipIf(!containerCapable)(
    "a command printing 100 MB keeps head and tail and names the log with all of it",
    async () => {
      const ran = await call(mcp, "exec", {
        command: "echo first; head -c 100000000 /dev/zero | tr '\\0' y; echo; echo last",
      });
      expect(ran.text.length).toBeLessThan(DEFAULT_MAX_OUTPUT_CHARS + 400);
      expect(ran.text).toMatch(/^exit code: 0 \(completed, \d+ ms\)\nfirst\ny+/);
      expect(ran.text).toMatch(/y+\nlast\n$/);
      const log = /all of it is in (\S+):/.exec(ran.text)?.[1] ?? "";
      expect(log).toMatch(/^\.computer-logs\/exec-/);
      expect((await box.files.head(log)).size).toBe(100_000_000 + 12);
    },
    300_000,
  );
});

describe("edit under races", () => {
  it("concurrent edits all land, each whole; a racing rewrite makes the stale ones fail, never half", async () => {
    const lines = Array.from({ length: 8 }, (_, i) => `line${i}=old`);
    await box.files.write("race.txt", `${lines.join("\n")}\n`);
    const results = await Promise.all(
      lines.map((l, i) => call(mcp, "edit", { path: "race.txt", edits: [{ old: l, new: `line${i}=new` }] })),
    );
    expect(results.filter((r) => r.isError)).toEqual([]);
    expect(await box.files.readText("race.txt")).toBe(`${lines.map((_, i) => `line${i}=new`).join("\n")}\n`);
    // A rewrite racing a multi-part edit: the edit applies wholly to the old text or fails on the new.
    await box.files.write("race2.txt", "a=1\nb=1\n");
    const runtime = containerCapable ? "container" : "shell";
    const [edit] = await Promise.all([
      call(mcp, "edit", {
        path: "race2.txt",
        edits: [
          { old: "a=1", new: "a=2" },
          { old: "b=1", new: "b=2" },
        ],
      }),
      box.exec.run({ runtime, source: "printf 'rewritten\\n' > race2.txt" }),
    ]);
    const final = await box.files.readText("race2.txt");
    if (edit.isError) {
      expect(edit.text).toMatch(/^EINVAL: edit 1 of 2: old text not found/);
      expect(final).toBe("rewritten\n");
    } else {
      expect(["a=2\nb=2\n", "rewritten\n"]).toContain(final);
    }
  }, 120_000);
});

describe("the stdio bridge", () => {
  it("computer mcp relays the same tools with the configured token", async () => {
    const { token } = await box.tokens.create({ scope: "ro" });
    const stdio = await connectStdio({
      COMPUTER_URL: fleet.url,
      COMPUTER_TOKEN: token,
      COMPUTER_ID: "mcp-box",
    });
    try {
      expect((await stdio.listTools()).tools.map((t) => t.name)).toEqual(READ_ONLY);
      expect((await call(stdio, "read", { path: "src/app.js", offset: 1, limit: 1 })).text).toBe(
        "     1\tone\n",
      );
      expect((await call(stdio, "grep", { pattern: "[" })).isError).toBe(true);
    } finally {
      await stdio.close();
    }
  });
});
