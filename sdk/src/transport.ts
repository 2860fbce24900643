/**
 * One HTTP call of the API: the route table builds the URL, the bearer token is added, an error
 * answer becomes a ComputerError, and idempotent calls answered 503 with `Retry-After` are
 * retried a bounded number of times. Only `fetch` and web APIs: runs in Node, Workers, browsers.
 */
import { type PathParams, ROUTES, type RouteName, routePath } from "./contract/routes.ts";
import { ComputerError, errorFromResponse } from "./error.ts";

/** How to reach the API. */
export interface ClientOptions {
  /** Base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** The admin token or a computer token. */
  token?: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** Retries of an idempotent call answered 503 with `Retry-After` (default 3). */
  retries?: number;
  /** Longest `Retry-After` worth waiting for, in ms (default 30 s); a longer one is not retried. */
  maxRetryDelayMs?: number;
}

/** One call: path parameters, query, body and whether it may be sent again. */
export interface CallOptions {
  params?: PathParams;
  query?: Record<string, string | number | boolean | undefined>;
  /** A JSON body (sent with `Content-Type: application/json`). */
  json?: unknown;
  /** A raw body. A stream is sent once: a call with one is never retried. */
  body?: BodyInit | null;
  headers?: Record<string, string>;
  signal?: AbortSignal | undefined;
  /** True when sending the call twice changes nothing more than sending it once. */
  idempotent?: boolean;
  /** Statuses that are answers, not errors (e.g. 304). */
  accept?: number[];
}

const IDEMPOTENT_METHODS = new Set(["GET", "HEAD", "PUT", "DELETE"]);

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", abort);
      resolve();
    }
    function abort() {
      clearTimeout(timer);
      reject(signal?.reason);
    }
    signal?.addEventListener("abort", abort, { once: true });
  });
}

function aborted(signal: AbortSignal | undefined, cause: unknown): ComputerError {
  return new ComputerError("EABORTED", "the call was aborted", { cause: signal?.reason ?? cause });
}

/** Sends API calls for one base URL and token. */
export class Transport {
  readonly url: string;
  readonly #token: string | undefined;
  readonly #fetch: typeof fetch;
  readonly #retries: number;
  readonly #maxRetryDelayMs: number;

  constructor(options: ClientOptions) {
    this.url = options.url.replace(/\/+$/, "");
    this.#token = options.token;
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init));
    this.#retries = options.retries ?? 3;
    this.#maxRetryDelayMs = options.maxRetryDelayMs ?? 30_000;
  }

  /** The absolute URL of `route`. */
  urlOf(route: RouteName, params: PathParams = {}, query: CallOptions["query"] = {}): string {
    const search = new URLSearchParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined)
        search.set(key, typeof value === "boolean" ? (value ? "1" : "0") : String(value));
    }
    const qs = search.toString();
    return `${this.url}${routePath(route, params)}${qs ? `?${qs}` : ""}`;
  }

  /** Calls `route` and answers its response; an error status throws a ComputerError. */
  async call(route: RouteName, options: CallOptions = {}): Promise<Response> {
    const { method } = ROUTES[route];
    const url = this.urlOf(route, options.params, options.query);
    const headers = new Headers(options.headers);
    if (this.#token !== undefined) headers.set("Authorization", `Bearer ${this.#token}`);
    let body = options.body ?? null;
    if (options.json !== undefined) {
      headers.set("Content-Type", "application/json");
      body = JSON.stringify(options.json);
    }
    const resendable = !(body instanceof ReadableStream);
    const idempotent = resendable && (options.idempotent ?? IDEMPOTENT_METHODS.has(method));
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        const init: RequestInit & { duplex?: "half" } = {
          method,
          headers,
          body,
          signal: options.signal ?? null,
        };
        if (body instanceof ReadableStream) init.duplex = "half";
        res = await this.#fetch(url, init);
      } catch (err) {
        if (options.signal?.aborted) throw aborted(options.signal, err);
        throw new ComputerError("ECONNREFUSED", `cannot reach ${this.url}: ${describe(err)}`, { cause: err });
      }
      if (res.ok || options.accept?.includes(res.status)) return res;
      const error = await errorFromResponse(res, method);
      const delay = error.retryAfter === undefined ? undefined : error.retryAfter * 1000;
      if (
        res.status !== 503 ||
        !idempotent ||
        attempt >= this.#retries ||
        delay === undefined ||
        delay > this.#maxRetryDelayMs
      ) {
        throw error;
      }
      try {
        await sleep(delay, options.signal);
      } catch (err) {
        throw aborted(options.signal, err);
      }
    }
  }

  /** Calls `route` and answers its JSON body. */
  async json<T>(route: RouteName, options: CallOptions = {}): Promise<T> {
    const res = await this.call(route, options);
    try {
      return (await res.json()) as T;
    } catch (err) {
      if (options.signal?.aborted) throw aborted(options.signal, err);
      throw new ComputerError("EPROTO", `${route}: the answer is not JSON`, {
        status: res.status,
        cause: err,
      });
    }
  }

  /** Calls `route` and discards its (empty) body. */
  async empty(route: RouteName, options: CallOptions = {}): Promise<void> {
    const res = await this.call(route, options);
    await res.body?.cancel();
  }
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === "string") return cause.code;
  return err instanceof Error ? err.message : String(err);
}
