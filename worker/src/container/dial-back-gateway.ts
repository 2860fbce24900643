/**
 * The dial-back gateway of Cloudflare containers: computerd inside a container dials
 * `http://computer.internal/...`; the Computer DO intercepts that host's outbound HTTP and hands
 * it to this entrypoint (a loopback binding from `ctx.exports`, with the computer id as props),
 * which forwards it to the computer's DO as its `_computerd` link request (or, for a path
 * ending in `_computerd/blobs`, as a blob upload). The DO still checks
 * the daemon's secret: the gateway grants nothing by itself.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { Env } from "../env.ts";
import { blobsPath, linkPath, parseLinkPath } from "./computerd-link.ts";

/** Props of the gateway binding: which computer the container belongs to. */
export interface GatewayProps {
  computer: string;
}

/** Forwards a container's dial-back to its computer's DO. */
export class ComputerdGateway extends WorkerEntrypoint<Env, GatewayProps> {
  override fetch(request: Request): Promise<Response> {
    const id = this.ctx.props.computer;
    const url = new URL(request.url);
    // The computer is the binding's, whatever the path names; only the endpoint is the path's.
    url.pathname = parseLinkPath(url.pathname)?.blobs === true ? blobsPath(id) : linkPath(id);
    return this.env.COMPUTER.getByName(id).fetch(new Request(url, request));
  }
}

type GatewayFactory = (options: { props: GatewayProps }) => Fetcher;

function isFactory(value: unknown): value is GatewayFactory {
  return typeof value === "function";
}

/** The gateway as a Fetcher for computer `id`, when the runtime provides `ctx.exports`. */
export function gatewayFetcher(ctx: DurableObjectState, id: string): Fetcher | undefined {
  const exports: unknown = ctx.exports;
  if (typeof exports !== "object" || exports === null) return undefined;
  const factory: unknown = (exports as Record<string, unknown>).ComputerdGateway;
  return isFactory(factory) ? factory({ props: { computer: id } }) : undefined;
}
