/**
 * The terminal routes (`/v1/computers/:id/terminals...`, docs/API.md "Terminals"): create,
 * list, state or WebSocket attach, and kill; and the DO's terminal subsystem wired to its
 * container link, exec manager and vfs.
 */

import type { Principal } from "../auth/principal.ts";
import { requireWrite } from "../computer/authorize.ts";
import type { ComputerContext } from "../computer/context.ts";
import { computerLimits } from "../container/container-limits.ts";
import { readJsonObject } from "../http/json-body.ts";
import { TerminalManager } from "./terminal-manager.ts";

/** The terminals of the computer `host` serves. */
export function terminalManagerFor(host: ComputerContext): TerminalManager {
  const idle = Number(host.env.TERMINAL_IDLE_SECONDS);
  return new TerminalManager({
    container: {
      connect: () => host.execs().connector.connect(),
      limits: () => computerLimits(host.vfs()),
      onRevision: (listener) => host.vfs().onRevision(listener),
    },
    shell: {
      start: (body, listener) => host.execs().manager.start(body, listener),
      kill: (execId) => host.execs().manager.kill(execId),
      isDirectory: (path) => {
        try {
          return host.vfs().stat(path).type === "dir";
        } catch {
          return false;
        }
      },
    },
    idleSeconds: () => (Number.isSafeInteger(idle) && idle > 0 ? idle : undefined),
  });
}

/** POST /terminals → 201 the terminal. */
export async function createTerminal(host: ComputerContext, request: Request): Promise<Response> {
  host.requireComputer();
  const body = await readJsonObject(request);
  return Response.json(await host.terminals().create(body), { status: 201 });
}

/** GET /terminals → `{ terminals }`. */
export function listTerminals(host: ComputerContext): Response {
  host.requireComputer();
  return Response.json({ terminals: host.terminals().list() });
}

/** GET /terminals/:tid: a WebSocket upgrade attaches (needs rw); otherwise the terminal's state. */
export function getTerminal(
  host: ComputerContext,
  principal: Principal,
  id: string,
  request: Request,
): Response {
  host.requireComputer();
  const terminals = host.terminals();
  if (request.headers.get("upgrade")?.toLowerCase() !== "websocket")
    return Response.json(terminals.get(id).json());
  requireWrite(principal);
  return terminals.attach(id, request);
}

/** DELETE /terminals/:tid: ends it → its final state. */
export async function killTerminal(host: ComputerContext, id: string): Promise<Response> {
  host.requireComputer();
  return Response.json(await host.terminals().kill(id));
}
