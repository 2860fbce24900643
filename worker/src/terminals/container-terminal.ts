/**
 * A terminal in the container: computerd runs the shell on a real pseudo-terminal
 * (`DaemonApi.openTerminal`). As before an exec, every DO-side change is pushed first; while
 * the terminal is open, later DO-side changes (API uploads, other runtimes) are pushed as they
 * happen, and what the shell writes streams back through computerd's uploader. When the shell
 * exits, a fence makes its last writes durable in the DO before the exit is reported.
 */
import type { ComputerLimits, TerminalSink } from "@computer/vfs/sync";
import { RpcTarget } from "capnweb";
import type { LinkSession } from "../container/computerd-link.ts";
import { sendLimits } from "../container/container-limits.ts";
import { workspaceRelative } from "../container/container-runtime.ts";
import type { TerminalBackend, TerminalEvents } from "./terminal.ts";

/** What a container terminal needs from the DO. */
export interface ContainerTerminalDeps {
  /** A live link (ensures the container); throws ApiError EUNAVAILABLE. */
  connect(): Promise<LinkSession>;
  limits(): ComputerLimits;
  /** Subscribes to new vfs revisions; returns the unsubscribe. */
  onRevision(listener: () => void): () => void;
}

/** How long DO-side changes gather before they are pushed to an open terminal's container. */
const PUSH_DELAY_MS = 100;

/** Receives one terminal's output and end (called by computerd only). */
class TerminalSinkTarget extends RpcTarget implements TerminalSink {
  readonly #id: string;
  readonly #output: (data: Uint8Array) => void;
  readonly #closed: (exitCode: number | null, signal?: string) => void;

  constructor(
    id: string,
    output: (data: Uint8Array) => void,
    closed: (exitCode: number | null, signal?: string) => void,
  ) {
    super();
    this.#id = id;
    this.#output = output;
    this.#closed = closed;
  }

  output(terminalId: string, data: Uint8Array): void {
    if (terminalId === this.#id && data instanceof Uint8Array) this.#output(data);
  }

  closed(terminalId: string, exitCode: number | null, signal?: string): void {
    if (terminalId !== this.#id) return;
    this.#closed(
      typeof exitCode === "number" ? exitCode : null,
      typeof signal === "string" ? signal : undefined,
    );
  }
}

/** Opens the terminal `id` in the container; resolves once its shell runs. */
export async function openContainerTerminal(
  deps: ContainerTerminalDeps,
  spec: { id: string; cols: number; rows: number; cwd: string; env: Record<string, string> },
  events: TerminalEvents,
): Promise<TerminalBackend> {
  const session = await deps.connect();
  await Promise.all([sendLimits(session, deps.limits()), session.push.drain()]);
  let pushTimer: ReturnType<typeof setTimeout> | undefined;
  const stopPushing = deps.onRevision(() => {
    pushTimer ??= setTimeout(() => {
      pushTimer = undefined;
      session.push.drain().catch(() => undefined);
    }, PUSH_DELAY_MS);
  });
  let ended = false;
  const end = async (exitCode: number | null, signal?: string) => {
    if (ended) return;
    ended = true;
    stopPushing();
    clearTimeout(pushTimer);
    try {
      await session.fence();
    } catch {
      // The link is gone: computerd's next connect uploads what is left, as for an exec.
    }
    events.exit(exitCode, signal);
  };
  const sink = new TerminalSinkTarget(
    spec.id,
    events.output,
    (exitCode, signal) => void end(exitCode, signal),
  );
  await session.daemon.openTerminal(
    { id: spec.id, cols: spec.cols, rows: spec.rows, cwd: workspaceRelative(spec.cwd), env: spec.env },
    sink,
  );
  void session.broken.then(() => {
    if (!ended) {
      ended = true;
      stopPushing();
      events.exit(null, "SIGHUP");
    }
  });
  const ignore = () => undefined;
  return {
    write: (data) => void Promise.resolve(session.daemon.writeTerminal(spec.id, data)).catch(ignore),
    resize: (cols, rows) =>
      void Promise.resolve(session.daemon.resizeTerminal(spec.id, cols, rows)).catch(ignore),
    close: () => void Promise.resolve(session.daemon.closeTerminal(spec.id)).catch(ignore),
  };
}
