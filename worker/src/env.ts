/** The bindings of the Computer Worker, as declared in worker/wrangler.jsonc. */
import type { Computer } from "./computer/computer.ts";
import type { Registry } from "./registry/registry.ts";

/** Worker and Durable Object environment. */
export interface Env {
  /** One Computer DO per computer id (`getByName(id)`). */
  COMPUTER: DurableObjectNamespace<Computer>;
  /** The single Registry DO (`getByName(REGISTRY_NAME)`). */
  REGISTRY: DurableObjectNamespace<Registry>;
  /** Worker Loader for the shell and js runtimes. */
  LOADER: WorkerLoader;
  /** Artifact bucket. */
  ARTIFACTS: R2Bucket;
  /** The operator's bearer token; also the root of the token-signing key. Secret. */
  COMPUTER_ADMIN_TOKEN: string;
  /** `computerd host` base URL (local fleets); when set, containers come from it. */
  COMPUTERD_HOST_URL?: string;
  /** Bearer token of `computerd host`. Secret. */
  COMPUTERD_HOST_TOKEN?: string;
  /** Base URL computerd dials back to (default: the origin the exec request came in on). */
  COMPUTERD_DIAL_BASE?: string;
  /** Container image for Cloudflare Containers (default: the `containers` entry's image). */
  COMPUTERD_IMAGE?: string;
  /** Seconds a terminal without a viewer stays open (default 900; a request may set its own). */
  TERMINAL_IDLE_SECONDS?: string;
  /** Output cap of each MCP tool answer, in characters (default 20000). */
  MCP_MAX_OUTPUT_CHARS?: string;
}
