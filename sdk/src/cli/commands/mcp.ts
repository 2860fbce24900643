/**
 * `computer mcp`: a stdio MCP server for clients that only start local processes. It relays
 * every JSON-RPC message between stdin/stdout and the computer's Streamable HTTP endpoint
 * (`/v1/computers/:id/mcp`) with the configured token, so the tools are the Worker's own.
 */
import type { Command } from "commander";
import { contextOf } from "../context.ts";

/** Adds `mcp` to `program`. */
export function addMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description("serve the computer's MCP tools on stdio (for MCP clients that start a command)")
    .action(async (_opts: object, command: Command) => {
      const ctx = await contextOf(command);
      const computer = ctx.computer();
      // Loaded here: the MCP SDK is large and only this command needs it.
      const { StdioServerTransport } = await import("@modelcontextprotocol/sdk/server/stdio.js");
      const { StreamableHTTPClientTransport } = await import(
        "@modelcontextprotocol/sdk/client/streamableHttp.js"
      );
      const endpoint = new URL(`${ctx.client.url}/v1/computers/${encodeURIComponent(computer.id)}/mcp`);
      const headers: Record<string, string> = ctx.config.token
        ? { Authorization: `Bearer ${ctx.config.token}` }
        : {};
      const upstream = new StreamableHTTPClientTransport(endpoint, { requestInit: { headers } });
      const local = new StdioServerTransport();
      const done = new Promise<void>((resolve) => {
        local.onclose = () => resolve();
      });
      local.onmessage = (message) => {
        upstream.send(message).catch((err: unknown) => {
          // A request the endpoint could not take still gets an answer, so the client does not hang.
          const id = (message as { id?: string | number }).id;
          if (id === undefined) return;
          const text = err instanceof Error ? err.message : String(err);
          void local.send({ jsonrpc: "2.0", id, error: { code: -32603, message: `computer mcp: ${text}` } });
        });
      };
      upstream.onmessage = (message) => void local.send(message);
      upstream.onerror = (err) => process.stderr.write(`computer mcp: ${err.message}\n`);
      await upstream.start();
      await local.start();
      await done;
      await upstream.close();
    });
}
