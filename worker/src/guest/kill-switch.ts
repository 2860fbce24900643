/**
 * The guest's kill switch: an RpcTarget the guest hands the DO (`caps.started`) before it runs
 * user code, so DELETE /exec/:id and the DO's timeout can stop a shell script or abort a js
 * exec's pending work from outside.
 */
import { RpcTarget } from "cloudflare:workers";
import type { GuestKillSwitch } from "../guest-hosting/guest-wire.ts";

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
