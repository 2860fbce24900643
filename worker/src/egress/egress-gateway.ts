/**
 * The gateway fetcher of Dynamic Workers whose computer allows some hosts: the guest's
 * `globalOutbound` is this entrypoint (a loopback binding from `ctx.exports` with the policy as
 * props), which forwards a request only when its host is allowed and refuses everything else.
 * Redirects come back to the guest unfollowed, so each hop passes through here again.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { Egress } from "../egress/egress.ts";
import type { Env } from "../env.ts";
import { egressEnabled, policyFetch } from "./egress-policy.ts";

/** Props of the gateway binding. */
export interface EgressGatewayProps {
  egress: Egress;
}

/** Forwards a guest's outbound request if the computer's egress policy allows its host. */
export class EgressGateway extends WorkerEntrypoint<Env, EgressGatewayProps> {
  override fetch(request: Request): Promise<Response> {
    return policyFetch(this.ctx.props.egress, request, { redirect: "manual" });
  }
}

type GatewayFactory = (options: { props: EgressGatewayProps }) => Fetcher;

function isFactory(value: unknown): value is GatewayFactory {
  return typeof value === "function";
}

/**
 * What a Dynamic Worker's `globalOutbound` must be under `egress`: `null` (no network) for
 * `none` or an empty allowlist, `undefined` (the Worker's own internet access) for `all`, the
 * gateway for an allowlist. Throws when an allowlist is set but `ctx.exports` has no gateway:
 * failing closed beats leaking.
 */
export function globalOutboundFor(ctx: DurableObjectState, egress: Egress): Fetcher | null | undefined {
  if (!egressEnabled(egress)) return null;
  if (egress === "all") return undefined;
  const exports: unknown = ctx.exports;
  const factory: unknown =
    typeof exports === "object" && exports !== null
      ? (exports as Record<string, unknown>).EgressGateway
      : undefined;
  if (!isFactory(factory)) throw new Error("the EgressGateway entrypoint is not exported: refusing egress");
  return factory({ props: { egress } });
}
