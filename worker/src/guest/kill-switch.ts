/**
 * The guest's kill switch: an RpcTarget the guest hands the DO (`caps.started`) as it starts to
 * run user code, so DELETE /exec/:id and the DO's timeout can stop a shell script or abort a js
 * exec's pending work from outside.
 */
import { RpcTarget } from "cloudflare:workers";
import type { GuestCapabilities, GuestKillSwitch } from "../guest-hosting/guest-wire.ts";

/** Calls `onKill` (once) when the DO kills the exec. */
export class KillSwitch extends RpcTarget implements GuestKillSwitch {
  readonly #onKill: () => void;
  #killed = false;

  constructor(onKill: () => void) {
    super();
    this.#onKill = onKill;
  }

  kill(): void {
    if (this.#killed) return;
    this.#killed = true;
    this.#onKill();
  }
}

/**
 * Hands `killSwitch` to the DO without waiting for its answer (a round trip to the DO saved on
 * every exec): a kill the DO was asked for before the switch arrived is pulled as soon as it
 * does (guest-session.ts), and the exec's own timer stops it meanwhile.
 */
export function announceKillSwitch(caps: GuestCapabilities, killSwitch: KillSwitch): void {
  Promise.resolve(caps.started(killSwitch)).catch(() => undefined);
}
