/**
 * `/v1/computers/:id/mcp`: the computer as an MCP server over Streamable HTTP (the official
 * TypeScript SDK, stateless, JSON answers). Its tools are @computer/sdk/tools run against this
 * Worker's own API in-process with the caller's token, so every tool call is authorized like a
 * request: an `ro` token is offered only the read-only tools, and its writes are refused anyway.
 */
import { ComputerClient, ComputerError } from "@computer/sdk";
import { callTool, DEFAULT_MAX_OUTPUT_CHARS, toolsFor } from "@computer/sdk/tools";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import {
  CallToolRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { Principal } from "../auth/principal.ts";
import type { Env } from "../env.ts";
import { ApiError } from "../http/errors.ts";
import { listResources, readResource } from "./resources.ts";

/** The Worker's own request handler (router.ts), for the tools' in-process API calls. */
export type ApiHandler = (request: Request) => Promise<Response>;

function outputCap(env: Env): number {
  const value = Number(env.MCP_MAX_OUTPUT_CHARS ?? "");
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_MAX_OUTPUT_CHARS;
}

/** Serves one MCP request for computer `id`, as `principal`. */
export async function serveMcp(
  request: Request,
  env: Env,
  id: string,
  principal: Principal,
  api: ApiHandler,
): Promise<Response> {
  if (request.method !== "POST") {
    // Stateless: no session to end and no server-to-client stream to open (both allowed by the spec).
    throw new ApiError("ENOTSUP", "this MCP server is stateless: only POST", { headers: { Allow: "POST" } });
  }
  const token = (request.headers.get("authorization") ?? "").replace(/^Bearer\s+/i, "");
  const client = new ComputerClient({
    url: new URL(request.url).origin,
    token,
    // A Request carrying an AbortSignal cannot cross into the Durable Object: the signal stays here.
    fetch: (input, init) => api(new Request(input, { ...init, signal: null })),
  });
  const computer = client.computer(id);
  try {
    // The computer exists and the token is still current (revocation is the computer's to check).
    await computer.info();
  } catch (err) {
    if (err instanceof ComputerError && err.status > 0) throw new ApiError(err.code as never, err.message);
    throw err;
  }
  const readOnly = principal.kind === "token" && principal.scope === "ro";
  const maxOutputChars = outputCap(env);
  const server = new Server(
    { name: "computer", version: "1.0.0" },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: `Computer ${id}: a Linux computer with a durable filesystem at /workspace. Paths are relative to /workspace.`,
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: toolsFor({ readOnly }).map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema as { type: "object" },
      annotations: { readOnlyHint: tool.readOnly },
    })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (call, extra) => {
    const result = await callTool(computer, call.params.name, call.params.arguments ?? {}, {
      readOnly,
      maxOutputChars,
      signal: extra.signal,
    });
    return { content: [{ type: "text" as const, text: result.text }], isError: result.isError === true };
  });
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: await listResources(computer),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: `computer://${id}/{+path}`,
        name: "file",
        description: "A file of the computer's /workspace",
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (read) => ({
    contents: [await readResource(computer, read.params.uri, maxOutputChars)],
  }));
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  return transport.handleRequest(request);
}
