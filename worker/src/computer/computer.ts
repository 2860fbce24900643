/**
 * The Computer Durable Object: one per computer id, SQLite-backed. The router calls
 * `handle()` with the parsed route and the authenticated principal; other Computer DOs call
 * the fork* methods while forking; the Registry listing calls `describe()`.
 */

import { DurableObject } from "cloudflare:workers";
import type { TreeRecord } from "@computer/vfs";
import { publishArtifact } from "../artifacts/artifact-routes.ts";
import { type PublishedArtifact, type PublishOptions, publish } from "../artifacts/publish-version.ts";
import { authenticate } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";
import { parseLinkPath } from "../container/computerd-link.ts";
import type { Env } from "../env.ts";
import { getExec, killExec, listExecs, startExec } from "../exec/exec-routes.ts";
import type { ExecSubsystem } from "../exec/exec-subsystem.ts";
import { wantsEventStream } from "../exec/sse.ts";
import { shellSpares } from "../guest-hosting/shell-spares.ts";
import { ApiError, toErrorResponse } from "../http/errors.ts";
import { type ComputerRoute, parseRoute } from "../http/route.ts";
import { PREVIEW_PREFIX } from "../previews/preview-link.ts";
import { servePreview } from "../previews/preview-proxy.ts";
import { closePreview, listPreviews, openPreview } from "../previews/preview-routes.ts";
import { createTerminal, getTerminal, killTerminal, listTerminals } from "../terminals/terminal-routes.ts";
import { authorize } from "./authorize.ts";
import { servedByFetch } from "./by-fetch.ts";
import { changesPage, changesStream } from "./changes.ts";
import { createCheckpoint, listCheckpoints, restoreCheckpoint } from "./checkpoints.ts";
import { ComputerContext } from "./context.ts";
import { deleteFile, getFile, headFile, putFile } from "./files.ts";
import { forkComputer } from "./fork.ts";
import {
  abortImport,
  type BlobTransfer,
  beginImport,
  commitImport,
  type ForkSettings,
  importRecords,
  missingBlobs,
  putBlobs,
} from "./fork-target.ts";
import { runFsOp } from "./fs-ops.ts";
import { type ComputerJson, computerJson, deleteComputer, getComputer, putComputer } from "./lifecycle.ts";
import { capture, type RpcResult } from "./rpc-result.ts";
import { createToken, revokeTokens } from "./tokens.ts";

/** What the router passes along with the request. */
export interface ComputerCall {
  /** The computer id from the URL (this DO is `getByName(id)`). */
  id: string;
  route: ComputerRoute;
  principal: Principal;
}

/** One computer: its filesystem, record and token generation. */
export class Computer extends DurableObject<Env> {
  readonly #host: ComputerContext;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#host = new ComputerContext(ctx, env);
  }

  /** Serves one API request; every error becomes the API's JSON error response. */
  async handle(request: Request, call: ComputerCall): Promise<Response> {
    // In flight: no spare shell isolate is warmed while this isolate serves a request.
    const left = shellSpares.enter();
    try {
      authorize(call.principal, call.route, this.#host.records.get());
      return await this.#dispatch(request, call);
    } catch (err) {
      return toErrorResponse(err);
    } finally {
      left();
    }
  }

  #dispatch(request: Request, { id, route, principal }: ComputerCall): Response | Promise<Response> {
    const host = this.#host;
    switch (route.kind) {
      case "computer.put":
        return putComputer(host, id, request);
      case "computer.get":
        return getComputer(host);
      case "computer.delete":
        return deleteComputer(host, id);
      case "tokens.create":
        return createToken(host, request);
      case "tokens.revoke":
        return revokeTokens(host);
      case "files.put":
        return putFile(host, route.path, route.mode, request);
      case "files.get":
        return getFile(host, route.path, route, request);
      case "files.head":
        return headFile(host, route.path);
      case "files.delete":
        return deleteFile(host, route.path, route.recursive);
      case "fs":
        return runFsOp(host, principal, request);
      case "checkpoints.create":
        return createCheckpoint(host, request);
      case "checkpoints.list":
        return listCheckpoints(host);
      case "checkpoints.restore":
        return restoreCheckpoint(host, route.name);
      case "fork":
        return forkComputer(host, request);
      case "exec.start":
        host.requireComputer();
        host.noteOrigin(request);
        return startExec(host.execs().manager, request);
      case "exec.list":
        host.requireComputer();
        return listExecs(host.execs().manager, route.limit);
      case "exec.get":
        host.requireComputer();
        return getExec(host.execs().manager, request, route.execId, route.follow, route.after);
      case "exec.kill":
        host.requireComputer();
        return killExec(host.execs().manager, route.execId);
      case "artifacts.publish":
        return publishArtifact(host, request);
      case "terminals.create":
        host.noteOrigin(request);
        return createTerminal(host, request);
      case "terminals.list":
        return listTerminals(host);
      case "terminals.get":
        return getTerminal(host, principal, route.terminalId, request);
      case "terminals.kill":
        return killTerminal(host, route.terminalId);
      case "ports.open":
        return openPreview(host, request);
      case "ports.list":
        return listPreviews(host, request);
      case "ports.close":
        return closePreview(host, route.port);
      case "changes":
        return wantsEventStream(request)
          ? changesStream(host, route, request.headers.get("last-event-id"))
          : changesPage(host, route);
      default:
        return route satisfies never;
    }
  }

  /** True iff a token carrying `nonce` is current for this live computer (for routes outside the DO). */
  tokenCurrent(nonce: string): boolean {
    const record = this.#host.records.get();
    return record?.state === "ready" && record.tokenNonce === nonce;
  }

  /**
   * Publishes the workspace path `path` (a vfs path, "/" = /workspace) as an artifact: the
   * helper the runtimes use from outside the DO (guest services inside it call publish() directly).
   */
  publishArtifact(path: string, options: PublishOptions): Promise<RpcResult<PublishedArtifact>> {
    return capture(() => publish(this.#host, path, options));
  }

  /** The computer as the API shows it, or null if it does not exist (for GET /v1/computers). */
  describe(): ComputerJson | null {
    const record = this.#host.records.get();
    return record?.state === "ready" ? computerJson(this.#host, record) : null;
  }

  /** Fork target: create this computer in state `importing`; returns the import id. */
  forkBegin(id: string, settings: ForkSettings): Promise<RpcResult<string>> {
    return capture(() => beginImport(this.#host, id, settings));
  }

  /** Fork target: which of `hashes` this computer lacks. */
  forkMissingBlobs(importId: string, hashes: string[]): Promise<RpcResult<string[]>> {
    return capture(() => missingBlobs(this.#host, importId, hashes));
  }

  /** Fork target: store blobs. */
  forkPutBlobs(importId: string, blobs: BlobTransfer[]): Promise<RpcResult<void>> {
    return capture(() => putBlobs(this.#host, importId, blobs));
  }

  /** Fork target: apply one exported page. */
  forkImport(importId: string, records: TreeRecord[]): Promise<RpcResult<void>> {
    return capture(() => importRecords(this.#host, importId, records));
  }

  /** Fork target: make the computer live. */
  forkCommit(importId: string): Promise<RpcResult<ComputerJson>> {
    return capture(() => commitImport(this.#host, importId));
  }

  /** Fork target: discard a failed import. */
  async forkAbort(importId: string): Promise<void> {
    await abortImport(this.#host, importId);
  }

  /**
   * Requests Workers RPC cannot carry, or carries dearly: WebSocket upgrades — computerd's
   * dial-back (`/v1/computers/:id/_computerd`, forwarded without user authentication: 401
   * unless it presents the daemon secret) and its blob uploads (`.../_computerd/blobs`, the
   * same secret), a terminal attach, and preview URLs (`/p/...`, signed, any request: HTTP or
   * WebSocket), proxied to the container's port — and a file's
   * upload or download (`PUT`/`GET /files/...`), whose body streams cheaper this way
   * (by-fetch.ts). A terminal attach and a file's transfer are authenticated and authorized
   * here again as if they came straight from the client.
   */
  override async fetch(request: Request): Promise<Response> {
    const left = shellSpares.enter();
    try {
      const url = new URL(request.url);
      if (url.pathname.startsWith(PREVIEW_PREFIX)) return await servePreview(this.#host, request);
      const link = parseLinkPath(url.pathname);
      if (link?.blobs === true) return await this.#host.execs().receiveBlobs(request);
      if (link !== undefined) return await this.#host.execs().acceptLink(request);
      const route = parseRoute(request.method, url);
      if (route.kind !== "computer" || !servedByFetch(route.route))
        throw new ApiError("ENOENT", "only terminal attaches and file transfers come here");
      const principal = await authenticate(request, this.env.COMPUTER_ADMIN_TOKEN, Date.now());
      if (principal.kind === "token" && principal.computer !== route.id)
        throw new ApiError("EFORBIDDEN", "this token is for another computer");
      return await this.handle(request, { id: route.id, route: route.route, principal });
    } catch (err) {
      return toErrorResponse(err);
    } finally {
      left();
    }
  }

  /** The shared alarm: hourly GC and the retry of pending container syncs. */
  override async alarm(): Promise<void> {
    const left = shellSpares.enter();
    try {
      await this.#host.runAlarm();
    } finally {
      left();
    }
  }

  /** Test seam: the DO's exec subsystem (to install fake runtimes and launchers). */
  execHostForTests(): ExecSubsystem {
    return this.#host.execs();
  }
}
