/**
 * The exec benchmark's view of one computer's HTTP API: create it, run an exec through
 * `POST /exec` (buffered) and time the round trip on the client, with the runtime's own
 * `durationMs` and its `X-Exec-Metrics` counters (RPC round trips of shell/js).
 */

/** The runtimes of docs/API.md. */
export type Runtime = "container" | "shell" | "js";

/** One timed exec. */
export interface TimedExec {
  /** Client-side round trip (request sent → result parsed), ms. */
  ms: number;
  status: string;
  exitCode: number | null;
  /** The exec's own duration as the API reports it, ms. */
  durationMs: number;
  metrics: Record<string, number>;
  stderr: string;
}

function parseMetrics(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pair of (header ?? "").split(",")) {
    const [name, value] = pair.trim().split("=");
    if (name && value !== undefined) out[name] = Number(value);
  }
  return out;
}

/** One computer of a fleet. */
export class ExecClient {
  readonly #base: string;
  readonly #token: string;

  constructor(baseUrl: string, adminToken: string, id: string) {
    this.#base = `${baseUrl}/v1/computers/${encodeURIComponent(id)}`;
    this.#token = adminToken;
  }

  /** PUT the computer (201 expected). */
  async create(): Promise<void> {
    const res = await fetch(this.#base, {
      method: "PUT",
      headers: { Authorization: `Bearer ${this.#token}` },
    });
    const text = await res.text();
    if (res.status !== 201) throw new Error(`create: HTTP ${res.status}: ${text.slice(0, 300)}`);
  }

  /** Runs `source` on `runtime` and times it; throws unless it completed with exit code 0. */
  async exec(runtime: Runtime, source: string, timeoutMs = 300_000): Promise<TimedExec> {
    const started = performance.now();
    const res = await fetch(`${this.#base}/exec`, {
      method: "POST",
      headers: { Authorization: `Bearer ${this.#token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ runtime, source, timeoutMs }),
    });
    const text = await res.text();
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`exec: HTTP ${res.status}: ${text.slice(0, 300)}`);
    const result = JSON.parse(text) as {
      status: string;
      exitCode: number | null;
      durationMs: number;
      stderr: string;
    };
    if (result.status !== "completed" || result.exitCode !== 0) {
      throw new Error(`exec ${result.status} (${result.exitCode}): ${result.stderr.slice(0, 300)}`);
    }
    return { ms, ...result, metrics: parseMetrics(res.headers.get("x-exec-metrics")) };
  }
}
