/**
 * One computer: its record, files, execs, terminals, change feed, checkpoints, fork, artifacts,
 * tokens and previews. Get one with `client.computer(id)`; nothing is fetched until a method is
 * called.
 */
import type {
  ChangeJson,
  ChangesPage,
  Checkpoint,
  ComputerInfo,
  ComputerSettings,
  IssuedToken,
  PublishedArtifact,
  PublishRequest,
  Restored,
  TokenRequest,
} from "./contract/types.ts";
import { Exec } from "./exec.ts";
import { Files, type Signal } from "./files.ts";
import { Previews } from "./previews.ts";
import { Terminals } from "./terminals.ts";
import type { Transport } from "./transport.ts";
import { type WatchOptions, watchChanges } from "./watch.ts";

/** Named checkpoints of a computer's tree (the agent's undo). */
export class Checkpoints {
  readonly #t: Transport;
  readonly #id: string;

  constructor(transport: Transport, id: string) {
    this.#t = transport;
    this.#id = id;
  }

  /** Records the current tree as `name`; an existing name is EEXIST. */
  create(name: string, options: Signal = {}): Promise<Checkpoint> {
    return this.#t.json("checkpoints.create", {
      params: { id: this.#id },
      json: { name },
      signal: options.signal,
    });
  }

  /** Every checkpoint, oldest first. */
  async list(options: Signal = {}): Promise<Checkpoint[]> {
    const page = await this.#t.json<{ checkpoints: Checkpoint[] }>("checkpoints.list", {
      params: { id: this.#id },
      signal: options.signal,
    });
    return page.checkpoints;
  }

  /** Makes the whole tree the checkpoint's again. */
  restore(name: string, options: Signal = {}): Promise<Restored> {
    return this.#t.json("checkpoints.restore", { params: { id: this.#id, name }, signal: options.signal });
  }
}

/** A computer's tokens (admin only). */
export class Tokens {
  readonly #t: Transport;
  readonly #id: string;

  constructor(transport: Transport, id: string) {
    this.#t = transport;
    this.#id = id;
  }

  /** Issues a token for this computer only: `ro` reads, `rw` also writes; `ttlSeconds` default 1 h. */
  create(request: TokenRequest, options: Signal = {}): Promise<IssuedToken> {
    return this.#t.json("tokens.create", { params: { id: this.#id }, json: request, signal: options.signal });
  }

  /** Revokes every token issued so far for this computer. */
  revoke(options: Signal = {}): Promise<void> {
    return this.#t.empty("tokens.revoke", { params: { id: this.#id }, signal: options.signal });
  }
}

/** A handle on computer `id`. */
export class Computer {
  readonly id: string;
  readonly files: Files;
  readonly exec: Exec;
  readonly checkpoints: Checkpoints;
  readonly tokens: Tokens;
  readonly terminals: Terminals;
  /** URLs reaching ports inside the container (a dev server started with `detach: true`). */
  readonly previews: Previews;
  readonly #t: Transport;

  constructor(transport: Transport, id: string) {
    this.#t = transport;
    this.id = id;
    this.files = new Files(transport, id);
    this.exec = new Exec(transport, id);
    this.checkpoints = new Checkpoints(transport, id);
    this.tokens = new Tokens(transport, id);
    this.terminals = new Terminals(transport, id);
    this.previews = new Previews(transport, id);
  }

  /**
   * Every change to the tree as it happens (any runtime or the API), resuming by itself after a
   * dropped connection: `for await (const change of computer.watch({ path: "src" }))`. `after`
   * defaults to `"now"`; `"0"` delivers the whole current tree first.
   */
  watch(options: WatchOptions = {}): AsyncGenerator<ChangeJson> {
    return watchChanges(this.#t, this.id, options);
  }

  /** The computer's record: creation time, quota, usage, egress. */
  info(options: Signal = {}): Promise<ComputerInfo> {
    return this.#t.json("computer.get", { params: { id: this.id }, signal: options.signal });
  }

  /** Changes quota or egress (admin). */
  update(settings: ComputerSettings, options: Signal = {}): Promise<ComputerInfo> {
    return this.#t.json("computer.put", { params: { id: this.id }, json: settings, signal: options.signal });
  }

  /** Deletes the computer with all its data (admin). */
  delete(options: Signal = {}): Promise<void> {
    return this.#t.empty("computer.delete", { params: { id: this.id }, signal: options.signal });
  }

  /** A new computer `to` with this one's tree (now, or at `checkpoint`), admin only. */
  async fork(to: string, options: Signal & { checkpoint?: string } = {}): Promise<Computer> {
    const json = options.checkpoint === undefined ? { to } : { to, checkpoint: options.checkpoint };
    await this.#t.json<ComputerInfo>("fork", { params: { id: this.id }, json, signal: options.signal });
    return new Computer(this.#t, to);
  }

  /**
   * One page of the change feed: changes after `after` (a cursor; `"0"`, the default, starts
   * with the whole tree; `"now"` with nothing), at or under `path`. A cursor older than the
   * retention is ESTALE, with the current cursor in the error's `details.cursor`.
   */
  changes(options: Signal & { after?: string; path?: string; limit?: number } = {}): Promise<ChangesPage> {
    return this.#t.json("changes", {
      params: { id: this.id },
      query: { after: options.after, path: options.path, limit: options.limit },
      signal: options.signal,
    });
  }

  /** Publishes a workspace file or directory; the answer's `url` is a signed public link. */
  publish(request: PublishRequest, options: Signal = {}): Promise<PublishedArtifact> {
    return this.#t.json("artifacts.publish", {
      params: { id: this.id },
      json: request,
      signal: options.signal,
    });
  }
}
