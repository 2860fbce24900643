/**
 * The MCP endpoint inside workerd (the Cloudflare Vitest pool): the official MCP client over
 * Streamable HTTP, its fetch being SELF.fetch, initializes, lists the tools (all for the admin,
 * the read-only ones for an ro token) and calls read and write; a wrong method is answered by
 * the transport. The real fleet runs the whole tool contract (test/e2e/mcp.test.ts).
 */
import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { describe, expect, it } from "vitest";
import { ADMIN, apiJson, createComputer } from "./helpers.ts";

async function connect(id: string, token: string): Promise<Client> {
  const client = new Client({ name: "workerd-test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`https://example.com/v1/computers/${id}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: (input, init) => SELF.fetch(new Request(input, init)),
  });
  await client.connect(transport);
  return client;
}

describe("MCP in workerd", () => {
  it("serves the tools to the admin and calls write then read", async () => {
    const id = await createComputer();
    const client = await connect(id, ADMIN);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([
        "read",
        "write",
        "edit",
        "ls",
        "find",
        "grep",
        "exec",
        "publish",
        "checkpoint",
        "restore",
      ]);
      const wrote = await client.callTool({
        name: "write",
        arguments: { path: "a/b.txt", content: "hello" },
      });
      expect(wrote).toMatchObject({
        content: [{ type: "text", text: "wrote 5 bytes to a/b.txt" }],
        isError: false,
      });
      const read = await client.callTool({ name: "read", arguments: { path: "a/b.txt" } });
      expect(read).toMatchObject({ content: [{ text: "hello" }] });
      const missing = await client.callTool({ name: "read", arguments: { path: "none" } });
      expect(missing).toMatchObject({
        isError: true,
        content: [{ text: expect.stringMatching(/^ENOENT: /) }],
      });
    } finally {
      await client.close();
    }
  });

  it("offers an ro token only the read-only tools", async () => {
    const id = await createComputer();
    const res = await apiJson("POST", `/v1/computers/${id}/tokens`, { scope: "ro", ttlSeconds: 60 });
    const { token } = (await res.json()) as { token: string };
    const client = await connect(id, token);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["read", "ls", "find", "grep"]);
    } finally {
      await client.close();
    }
  });
});
