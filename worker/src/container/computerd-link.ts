/**
 * The DO side of the link to computerd: computerd dials back a WebSocket to
 * `/v1/computers/:id/_computerd` presenting its per-daemon secret; the DO serves `DoSyncApi`
 * on it (capnweb) and holds the `DaemonApi` stub computerd provides. One session at a time:
 * a new dial-back replaces the old one. Execs wait here for a session after `/connect`.
 */
import { COMPUTER_ID } from "@computer/sdk/computer-id";
import {
  type DaemonApi,
  type FenceResult,
  forwardSyncPeer,
  SyncLink,
  WIRE_FRAMES,
  WIRE_HEADER,
  WireTransport,
} from "@computer/vfs/sync";
import { RpcSession, type RpcStub } from "capnweb";
import { bearerToken, isAdminToken } from "../auth/authenticate.ts";
import { ApiError } from "../http/errors.ts";
import { receiveBlobs } from "./blob-upload.ts";
import { RETRY_AFTER_SECONDS } from "./container-launcher.ts";
import { type DoSyncDeps, DoSyncTarget } from "./do-sync-target.ts";

/** Path of the dial-back endpoint of computer `id`. */
export function linkPath(id: string): string {
  return `/v1/computers/${id}/_computerd`;
}

/** Path of computer `id`'s blob uploads: computerd POSTs the chunks of large files here (blob-upload.ts). */
export function blobsPath(id: string): string {
  return `${linkPath(id)}/blobs`;
}

/** computerd's endpoints of a computer: the dial-back, or its blob uploads. */
export interface LinkRoute {
  id: string;
  blobs: boolean;
}

/** The computer id (and which endpoint) when `pathname` is a dial-back or blob upload endpoint. */
export function parseLinkPath(pathname: string): LinkRoute | undefined {
  const match = /^\/v1\/computers\/([^/]+)\/_computerd(\/blobs)?$/.exec(pathname);
  const id = match?.[1];
  return id !== undefined && COMPUTER_ID.test(id) ? { id, blobs: match?.[2] !== undefined } : undefined;
}

/** 401 unless `request` presents `secret` (the secret of the computerd the DO launched; undefined: none). */
async function requireSecret(request: Request, secret: string | undefined): Promise<void> {
  const presented = bearerToken(request);
  if (secret === undefined || presented === undefined || !(await isAdminToken(presented, secret))) {
    throw new ApiError("EUNAUTHORIZED", "computerd's requests must present the daemon's secret");
  }
}

/** One connected computerd. */
export class LinkSession {
  readonly daemon: RpcStub<DaemonApi>;
  /** DO → computerd pushes. */
  readonly push: SyncLink;
  /** Resolves (never rejects) with the reason once the link is gone. */
  readonly broken: Promise<Error>;
  /** The limits computerd took on this link, as JSON (container-limits.ts sendLimits). */
  limitsTaken: string | undefined;
  #broken: Error | undefined;
  readonly #socket: WebSocket;
  readonly #deps: DoSyncDeps;

  constructor(daemon: RpcStub<DaemonApi>, socket: WebSocket, deps: DoSyncDeps) {
    this.daemon = daemon;
    this.#socket = socket;
    this.#deps = deps;
    this.push = new SyncLink(deps.endpoint(), forwardSyncPeer(daemon));
    this.broken = new Promise((resolve) => {
      const fail = (reason: unknown) => {
        this.#broken ??= reason instanceof Error ? reason : new Error(String(reason));
        resolve(this.#broken);
      };
      daemon.onRpcBroken(fail);
      socket.addEventListener("close", () => fail(new Error("computerd closed the link")));
      socket.addEventListener("error", () => fail(new Error("the link to computerd failed")));
    });
  }

  /**
   * computerd's fence, at the later of its revision and the DO's own: a fence that sent nothing
   * answers the link's last applied one (FenceResult.rev), and the DO has everything computerd
   * sent by the time the answer arrives.
   */
  async fence(): Promise<FenceResult> {
    const fence = await this.daemon.fence();
    return { ...fence, rev: Math.max(fence.rev, this.#deps.rev()) };
  }

  /** True once the link is gone. */
  isBroken(): boolean {
    return this.#broken !== undefined;
  }

  /** Closes the link (a newer session replaced it, or the computer is going away). */
  close(reason = "replaced"): void {
    this.#broken ??= new Error(`link closed: ${reason}`);
    try {
      this.daemon[Symbol.dispose]();
      this.#socket.close(1000, reason);
    } catch {
      // Already closed.
    }
  }
}

/** The link of one Computer DO. */
export class ComputerdLink {
  readonly #deps: DoSyncDeps;
  #session: LinkSession | undefined;
  #waiters: ((session: LinkSession) => void)[] = [];

  constructor(deps: DoSyncDeps) {
    this.#deps = deps;
  }

  /** The connected session, if any and not broken. */
  current(): LinkSession | undefined {
    return this.#session?.isBroken() === false ? this.#session : undefined;
  }

  /**
   * Serves a dial-back: 401 unless the bearer is `secret` (the secret of the computerd the DO
   * launched; undefined: none launched), 400 unless it is a WebSocket upgrade.
   */
  async accept(request: Request, secret: string | undefined): Promise<Response> {
    await requireSecret(request, secret);
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") {
      throw new ApiError("EINVAL", "the dial-back must be a WebSocket upgrade");
    }
    const pair = new WebSocketPair();
    const client = pair[0];
    const server = pair[1];
    server.accept();
    // Bytes as binary frames beside the JSON when computerd asks (vfs/src/sync/wire-transport.ts).
    const frames = request.headers.get(WIRE_HEADER) === WIRE_FRAMES;
    const transport = new WireTransport(server, { frames });
    const daemon = new RpcSession<DaemonApi>(transport, new DoSyncTarget(this.#deps)).getRemoteMain();
    const session = new LinkSession(daemon, server, this.#deps);
    this.#session?.close();
    this.#session = session;
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const resolve of waiters) resolve(session);
    return new Response(null, { status: 101, webSocket: client });
  }

  /**
   * Serves a blob upload (blob-upload.ts): 401 unless the bearer is `secret`, as for the
   * dial-back. It needs no session: the blobs are stored for the batch that names them.
   */
  async receiveBlobs(request: Request, secret: string | undefined): Promise<Response> {
    await requireSecret(request, secret);
    return receiveBlobs(request, this.#deps.endpoint());
  }

  /** Resolves with a session once computerd has dialed back; 503 after `timeoutMs`. */
  waitForSession(timeoutMs: number): Promise<LinkSession> {
    const current = this.current();
    if (current !== undefined) return Promise.resolve(current);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== onSession);
        reject(
          new ApiError("EUNAVAILABLE", "computerd did not dial back", {
            headers: { "Retry-After": String(RETRY_AFTER_SECONDS) },
          }),
        );
      }, timeoutMs);
      const onSession = (session: LinkSession) => {
        clearTimeout(timer);
        resolve(session);
      };
      this.#waiters.push(onSession);
    });
  }

  /** Closes the session (the computer is deleted or computerd relaunched). */
  close(reason: string): void {
    this.#session?.close(reason);
    this.#session = undefined;
  }
}
