/**
 * The official MCP client SDK connected to a fleet's computer, over Streamable HTTP (with a
 * token) or over the CLI's stdio bridge (`computer mcp`), and a helper that calls one tool
 * and answers its text and `isError`.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CLI, cliEnv } from "./cli-run.ts";

/** A connected MCP client. */
export async function connectHttp(url: string, id: string, token: string): Promise<Client> {
  const client = new Client({ name: "e2e", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/v1/computers/${id}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** A client talking to `computer mcp` (the CLI's stdio bridge) started with `env`. */
export async function connectStdio(env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "e2e-stdio", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: CLI,
    args: ["mcp"],
    env: cliEnv(env) as Record<string, string>,
  });
  await client.connect(transport);
  return client;
}

/** Calls tool `name`; answers its text and whether it is an error result. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as {
    content: { type: string; text?: string }[];
    isError?: boolean;
  };
  return { text: result.content.map((c) => c.text ?? "").join(""), isError: result.isError === true };
}
