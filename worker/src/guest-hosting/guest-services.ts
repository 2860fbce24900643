/**
 * The trusted services a shell/js exec may call (GuestServicesApi, guest-wire.ts), run in the
 * DO next to the vfs: git (worker/src/git: isomorphic-git over the computer's files, clone only
 * through the egress policy), artifacts (publish a file or directory, through the
 * `ArtifactPublisher` the DO plugs in) and the shell's html-to-markdown (the request checked
 * here, converted in a Dynamic Worker: html-to-markdown.ts). An RpcTarget per exec, revoked
 * when the exec ends.
 */
import { RpcTarget } from "cloudflare:workers";
import type { Vfs } from "@computer/vfs";
import type { Egress } from "../egress/egress.ts";
import { egressEnabled, policyFetch } from "../egress/egress-policy.ts";
import { type ComputerGit, computerGit, type GitContext } from "../git/api.ts";
import { runGit } from "../git/cli.ts";
import { vfsGitFs } from "../git/vfs-git-fs.ts";
import {
  GIT_FUNCTIONS,
  type GuestCallResult,
  type GuestCommandResult,
  type GuestServicesApi,
  type HtmlToMarkdownRequest,
} from "./guest-wire.ts";
import { type Converter, htmlToMarkdown } from "./html-to-markdown.ts";

/** What `computer:artifacts` and the shell's `publish` ask for. */
export interface PublishRequest {
  /** A /workspace path (file or directory). */
  path: string;
  name?: string;
  version?: string;
  ttlSeconds?: number;
}

/** Publishes artifacts for the exec's computer (the Artifacts subsystem implements it). */
export interface ArtifactPublisher {
  /** Publishes `request.path`; resolves with the published artifact (name, version, url, files). */
  publish(request: PublishRequest): Promise<unknown>;
  /** The shell's `publish ARGS...` in `cwd`: usage, output and exit code like a command. */
  command(args: string[], cwd: string): Promise<GuestCommandResult>;
}

/** What the services need from the DO. */
export interface GuestServicesDeps {
  vfs(): Vfs;
  egress(): Egress;
  /** The exec's environment (GIT_AUTHOR_* etc.). */
  env: Record<string, string>;
  /** The exec's cwd (a /workspace path): `computer:git` resolves relative `dir`s from it. */
  cwd: string;
  /** Called after a call that may have changed the tree. */
  changed(): void;
  /** Absent while artifacts are not available in this deployment. */
  artifacts?: ArtifactPublisher;
  /** The computer's html-to-markdown converter (html-to-markdown.ts), loaded when first called. */
  converter(): Converter;
}

/** The git methods a guest may call: what `computer:git` exports (and nothing else of ComputerGit). */
const GIT_METHODS = new Set<keyof ComputerGit>(GIT_FUNCTIONS);

function isGitMethod(name: string): name is keyof ComputerGit {
  return (GIT_METHODS as Set<string>).has(name);
}

function failure(err: unknown): GuestCallResult {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  return { ok: false, error: { code: typeof code === "string" ? code : "EIO", message } };
}

/** One exec's services. */
export class GuestServicesTarget extends RpcTarget implements GuestServicesApi {
  readonly #deps: GuestServicesDeps;
  #revoked = false;

  constructor(deps: GuestServicesDeps) {
    super();
    this.#deps = deps;
  }

  #check(): void {
    if (this.#revoked) throw new Error("this exec has ended: its services are closed");
  }

  #gitContext(cwd: string): GitContext {
    const egress = this.#deps.egress();
    const ctx: GitContext = { fs: vfsGitFs(this.#deps.vfs()), cwd, env: this.#deps.env };
    if (egressEnabled(egress)) ctx.fetch = (input, init) => policyFetch(egress, input, init);
    return ctx;
  }

  async gitCommand(args: string[], cwd: string): Promise<GuestCommandResult> {
    this.#check();
    try {
      return await runGit(args.map(String), this.#gitContext(String(cwd)));
    } finally {
      this.#deps.changed();
    }
  }

  async publishCommand(args: string[], cwd: string): Promise<GuestCommandResult> {
    this.#check();
    const artifacts = this.#deps.artifacts;
    if (artifacts === undefined) {
      return { exitCode: 1, stdout: "", stderr: "publish: artifacts are not available in this deployment\n" };
    }
    return artifacts.command(args.map(String), String(cwd));
  }

  async git(method: string, options: unknown): Promise<GuestCallResult> {
    this.#check();
    if (!isGitMethod(method))
      return { ok: false, error: { code: "EINVAL", message: `no git function '${method}'` } };
    const args = typeof options === "object" && options !== null ? options : {};
    const git = computerGit(this.#gitContext(this.#deps.cwd));
    try {
      const call = git[method] as (args: unknown) => Promise<unknown>;
      return { ok: true, value: await call(args) };
    } catch (err) {
      return failure(err);
    } finally {
      this.#deps.changed();
    }
  }

  async artifacts(method: string, options: unknown): Promise<GuestCallResult> {
    this.#check();
    const artifacts = this.#deps.artifacts;
    if (artifacts === undefined) {
      return { ok: false, error: { code: "EUNAVAILABLE", message: "artifacts are not available" } };
    }
    if (method !== "publish")
      return { ok: false, error: { code: "EINVAL", message: `no artifacts function '${method}'` } };
    try {
      return { ok: true, value: await artifacts.publish(this.#fromCwd(options)) };
    } catch (err) {
      return failure(err);
    } finally {
      this.#deps.changed();
    }
  }

  async htmlToMarkdown(request: HtmlToMarkdownRequest): Promise<GuestCallResult> {
    this.#check();
    return htmlToMarkdown(request, () => this.#deps.converter());
  }

  /** `options` with a relative `path` made absolute from the exec's cwd. */
  #fromCwd(options: unknown): PublishRequest {
    const request = (typeof options === "object" && options !== null ? options : {}) as PublishRequest;
    const path: unknown = request.path;
    if (typeof path !== "string" || path.startsWith("/")) return request;
    return { ...request, path: `${this.#deps.cwd}/${path}` };
  }

  /** Closes the capability for good. */
  revoke(): void {
    this.#revoked = true;
  }
}
