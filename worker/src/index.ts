/**
 * @computer/worker: the Computer Worker entry point. The default export serves the HTTP API
 * (docs/API.md); the Durable Object classes are exported for the runtime by name.
 */
import type { Env } from "./env.ts";
import { handleRequest } from "./router.ts";

export { Computer, type ComputerCall } from "./computer/computer.ts";
export { ComputerdGateway } from "./container/dial-back-gateway.ts";
export { EgressGateway } from "./egress/egress-gateway.ts";
export type { Env } from "./env.ts";
export { Registry } from "./registry/registry.ts";

/** The HTTP API (docs/API.md): `GET /healthz`, `GET /v1/openapi.json` and everything under `/v1`. */
export default {
  fetch(request: Request, env: Env): Promise<Response> {
    return handleRequest(request, env);
  },
} satisfies ExportedHandler<Env>;
