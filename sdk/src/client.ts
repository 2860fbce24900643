/**
 * The entry point of the SDK: `new ComputerClient({ url, token })`, then `client.computers`
 * (create, list, delete), `client.computer(id)` for one computer's files and execs, and
 * `client.artifacts` for the artifact registry.
 */

import { Computer } from "./computer.ts";
import type {
  ArtifactDetail,
  ArtifactPage,
  ArtifactSummary,
  ComputerInfo,
  ComputerPage,
  ComputerSettings,
} from "./contract/types.ts";
import type { Signal } from "./files.ts";
import { type ClientOptions, Transport } from "./transport.ts";

/** Creating, listing and deleting computers (admin). */
export class Computers {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** Creates computer `id` (or updates an existing one's settings); `created` tells which. */
  async create(
    id: string,
    settings: ComputerSettings = {},
    options: Signal = {},
  ): Promise<ComputerInfo & { created: boolean }> {
    const res = await this.#t.call("computer.put", {
      params: { id },
      json: settings,
      signal: options.signal,
    });
    return { ...((await res.json()) as ComputerInfo), created: res.status === 201 };
  }

  /** Computer `id`'s record (ENOENT when there is none). */
  get(id: string, options: Signal = {}): Promise<ComputerInfo> {
    return this.#t.json("computer.get", { params: { id }, signal: options.signal });
  }

  /** One page of computers, by id; pass `next` as `after` for the next. */
  list(options: Signal & { after?: string; limit?: number } = {}): Promise<ComputerPage> {
    return this.#t.json("computers.list", {
      query: { after: options.after, limit: options.limit },
      signal: options.signal,
    });
  }

  /** Every computer, page after page. */
  async *all(options: Signal & { pageSize?: number } = {}): AsyncGenerator<ComputerInfo> {
    let after: string | undefined;
    do {
      const page = await this.list({ signal: options.signal, after, limit: options.pageSize ?? 100 });
      yield* page.computers;
      after = page.next;
    } while (after !== undefined);
  }

  /** Deletes computer `id` and all its data. */
  delete(id: string, options: Signal = {}): Promise<void> {
    return this.#t.empty("computer.delete", { params: { id }, signal: options.signal });
  }
}

/** The artifact registry. */
export class Artifacts {
  readonly #t: Transport;

  constructor(transport: Transport) {
    this.#t = transport;
  }

  /** One page of artifact names (admin: all; a computer token: its computer's). */
  list(options: Signal & { after?: string; limit?: number } = {}): Promise<ArtifactPage> {
    return this.#t.json("artifacts.list", {
      query: { after: options.after, limit: options.limit },
      signal: options.signal,
    });
  }

  /** Every artifact name, page after page. */
  async *all(options: Signal = {}): AsyncGenerator<ArtifactSummary> {
    let after: string | undefined;
    do {
      const page = await this.list({ signal: options.signal, after });
      yield* page.artifacts;
      after = page.next;
    } while (after !== undefined);
  }

  /** An artifact's versions, newest first, each with a link signed for `ttlSeconds` (default 7 days). */
  get(name: string, options: Signal & { ttlSeconds?: number } = {}): Promise<ArtifactDetail> {
    return this.#t.json("artifacts.get", {
      params: { name },
      query: { ttlSeconds: options.ttlSeconds },
      signal: options.signal,
    });
  }
}

/** A client of one Computer API (a `make dev` fleet or a deployed Worker). */
export class ComputerClient {
  readonly url: string;
  readonly computers: Computers;
  readonly artifacts: Artifacts;
  readonly #t: Transport;

  constructor(options: ClientOptions) {
    this.#t = new Transport(options);
    this.url = this.#t.url;
    this.computers = new Computers(this.#t);
    this.artifacts = new Artifacts(this.#t);
  }

  /** A handle on computer `id` (nothing is fetched yet). */
  computer(id: string): Computer {
    return new Computer(this.#t, id);
  }

  /** True when the API answers `GET /healthz`. */
  async healthy(options: Signal = {}): Promise<boolean> {
    const res = await this.#t.call("health", { signal: options.signal });
    return (await res.text()) === "ok";
  }

  /** The API's OpenAPI 3.1 document. */
  openapi(options: Signal = {}): Promise<Record<string, unknown>> {
    return this.#t.json("openapi", { signal: options.signal });
  }
}
