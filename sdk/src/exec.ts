/**
 * Running commands: a buffered result, a live stream of stdout/stderr/exit events (an async
 * iterable), re-attaching to an exec by id from a sequence number, kill, list. The stream is
 * docs/API.md's Server-Sent Events; the exec's id is known as soon as the call is answered.
 */
import type { ExecRequest, ExecResult, ExecSummary } from "./contract/types.ts";
import { ComputerError } from "./error.ts";
import type { Signal } from "./files.ts";
import { readSse } from "./sse.ts";
import type { Transport } from "./transport.ts";

/** One event of an exec stream. */
export type ExecEvent =
  | { type: "stdout" | "stderr"; seq: number; data: string }
  | { type: "exit"; result: ExecResult };

/**
 * A running exec's events, in order, ending with exactly one `exit`. Iterate it once; or call
 * `result()`, which drains it (calling `onOutput` for each piece) and answers the exit's result.
 */
export class ExecStream implements AsyncIterable<ExecEvent> {
  /** The exec's id (`ex_...`). */
  readonly id: string;
  readonly #body: ReadableStream<Uint8Array>;
  readonly #events: AsyncGenerator<ExecEvent>;

  constructor(id: string, body: ReadableStream<Uint8Array>) {
    this.id = id;
    this.#body = body;
    this.#events = execEvents(body);
  }

  [Symbol.asyncIterator](): AsyncIterator<ExecEvent> {
    return this.#events;
  }

  /** Reads the stream to its end and answers the result. */
  async result(
    onOutput?: (event: Extract<ExecEvent, { type: "stdout" | "stderr" }>) => void,
  ): Promise<ExecResult> {
    for await (const event of this.#events) {
      if (event.type === "exit") return event.result;
      onOutput?.(event);
    }
    throw new ComputerError("EPROTO", `the stream of ${this.id} ended without an exit event`);
  }

  /** Stops reading (the exec goes on; re-attach with `exec.attach(id, { after })`). */
  async close(): Promise<void> {
    await this.#events.return(undefined);
    // A stream never iterated still holds its connection open: cancel the body itself.
    if (!this.#body.locked) await this.#body.cancel().catch(() => {});
  }
}

async function* execEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ExecEvent> {
  for await (const frame of readSse(body)) {
    let data: unknown;
    try {
      data = JSON.parse(frame.data);
    } catch (err) {
      throw new ComputerError("EPROTO", `malformed ${frame.event} event`, { cause: err });
    }
    if (frame.event === "exit") {
      yield { type: "exit", result: data as ExecResult };
      return;
    }
    if (frame.event === "stdout" || frame.event === "stderr") {
      const { seq, data: text } = data as { seq: number; data: string };
      yield { type: frame.event, seq, data: text };
    }
  }
}

/** A buffered result with the runtime's counters (`X-Exec-Metrics`: fsCalls, fsOps, ... of shell/js). */
export type RunResult = ExecResult & { metrics: Record<string, number> };

function parseMetrics(header: string | null): Record<string, number> {
  const metrics: Record<string, number> = {};
  for (const pair of (header ?? "").split(",")) {
    const [name, value] = pair.trim().split("=");
    if (name && value !== undefined && Number.isFinite(Number(value))) metrics[name] = Number(value);
  }
  return metrics;
}

/** The execs of one computer. */
export class Exec {
  readonly #t: Transport;
  readonly #id: string;

  constructor(transport: Transport, id: string) {
    this.#t = transport;
    this.#id = id;
  }

  /** Runs `request` and answers its result once it has finished (a non-zero exit is a result). */
  async run(request: ExecRequest, options: Signal = {}): Promise<RunResult> {
    const res = await this.#t.call("exec.start", {
      params: { id: this.#id },
      json: request,
      signal: options.signal,
    });
    const result = (await res.json()) as ExecResult;
    return { ...result, metrics: parseMetrics(res.headers.get("x-exec-metrics")) };
  }

  /** Starts `request` and streams its output as it comes. Aborting `signal` stops reading only. */
  async stream(request: ExecRequest, options: Signal = {}): Promise<ExecStream> {
    const res = await this.#t.call("exec.start", {
      params: { id: this.#id },
      json: request,
      headers: { Accept: "text/event-stream" },
      signal: options.signal,
    });
    return this.#streamOf(res);
  }

  /** Starts `request` without waiting for it; answers its id. */
  async start(request: ExecRequest, options: Signal = {}): Promise<string> {
    const stream = await this.stream(request, options);
    await stream.close();
    return stream.id;
  }

  /**
   * Re-attaches to exec `execId`: its output after seq `after` (default: from the start), then
   * live events until it exits; a finished exec replays what the journal kept and its exit.
   */
  async attach(execId: string, options: Signal & { after?: number } = {}): Promise<ExecStream> {
    const res = await this.#t.call("exec.get", {
      params: { id: this.#id, execId },
      query: { follow: 1, after: options.after },
      headers: { Accept: "text/event-stream" },
      signal: options.signal,
    });
    return this.#streamOf(res, execId);
  }

  /** The result of exec `execId` (`status: "running"` while it runs). */
  get(execId: string, options: Signal = {}): Promise<ExecResult> {
    return this.#t.json<ExecResult>("exec.get", { params: { id: this.#id, execId }, signal: options.signal });
  }

  /**
   * The counters the runtime reported for recent exec `execId` (`X-Exec-Metrics` of its GET;
   * `{}` when the computer kept none), e.g. after a streamed exec's exit.
   */
  async metrics(execId: string, options: Signal = {}): Promise<Record<string, number>> {
    const res = await this.#t.call("exec.get", { params: { id: this.#id, execId }, signal: options.signal });
    await res.body?.cancel();
    return parseMetrics(res.headers.get("x-exec-metrics"));
  }

  /** The most recent execs, newest first, without their output. */
  async list(options: Signal & { limit?: number } = {}): Promise<ExecSummary[]> {
    const page = await this.#t.json<{ execs: ExecSummary[] }>("exec.list", {
      params: { id: this.#id },
      query: { limit: options.limit },
      signal: options.signal,
    });
    return page.execs;
  }

  /** Kills exec `execId`; answers its result once it has ended (a finished one's, unchanged). */
  kill(execId: string, options: Signal = {}): Promise<ExecResult> {
    return this.#t.json<ExecResult>("exec.kill", {
      params: { id: this.#id, execId },
      signal: options.signal,
    });
  }

  #streamOf(res: Response, knownId?: string): ExecStream {
    const id = res.headers.get("x-exec-id") ?? knownId;
    if (id === undefined || res.body === null) {
      throw new ComputerError("EPROTO", "the exec stream has no id or body", { status: res.status });
    }
    return new ExecStream(id, res.body);
  }
}
