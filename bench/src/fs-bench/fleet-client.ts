/**
 * The slice of one computer's HTTP API (docs/API.md) the fleet scenarios use: create, exec
 * (buffered, or as Server-Sent Events with each event's arrival time) and full directory
 * listings. Errors are thrown with the response text; the bench records them.
 */

/** An exec result as the API returns it (the fields the bench reads). */
export interface ExecResult {
  status: string;
  exitCode: number | null;
  durationMs?: number;
  stderr?: string;
  sync?: { status: string; rev?: number };
  error?: { code: string; message: string };
}

/** One SSE event and when it arrived (performance.now()). */
export interface Arrival {
  event: string;
  at: number;
  data: string;
}

/** Throws unless the exec completed with exit code 0 and its writes are in the Durable Object. */
export function assertSynced(result: ExecResult): void {
  if (result.status !== "completed" || result.exitCode !== 0 || result.sync?.status !== "complete")
    throw new Error(`exec did not complete and sync: ${JSON.stringify(result).slice(0, 500)}`);
}

/** The API of computer `id` behind `baseUrl`, with the admin token. */
export class ComputerClient {
  readonly #base: string;
  readonly #token: string;

  constructor(baseUrl: string, adminToken: string, id: string) {
    this.#base = `${baseUrl}/v1/computers/${encodeURIComponent(id)}`;
    this.#token = adminToken;
  }

  #headers(extra: Record<string, string> = {}): Record<string, string> {
    return { Authorization: `Bearer ${this.#token}`, ...extra };
  }

  async #expect(res: Response, status: number, what: string): Promise<string> {
    const text = await res.text();
    if (res.status !== status) throw new Error(`${what}: HTTP ${res.status}: ${text.slice(0, 500)}`);
    return text;
  }

  /** PUT the computer. */
  async create(): Promise<void> {
    await this.#expect(await fetch(this.#base, { method: "PUT", headers: this.#headers() }), 201, "create");
  }

  /** Runs `source` in the container runtime; the finished result. */
  async exec(source: string, timeoutMs = 120_000): Promise<ExecResult> {
    const res = await fetch(`${this.#base}/exec`, {
      method: "POST",
      headers: this.#headers({ "Content-Type": "application/json" }),
      body: JSON.stringify({ runtime: "container", source, timeoutMs }),
    });
    return JSON.parse(await this.#expect(res, 200, "exec")) as ExecResult;
  }

  /** Runs `source` with `Accept: text/event-stream`; every event with its arrival time. */
  async execEvents(source: string, timeoutMs = 600_000): Promise<Arrival[]> {
    const res = await fetch(`${this.#base}/exec`, {
      method: "POST",
      headers: this.#headers({ "Content-Type": "application/json", Accept: "text/event-stream" }),
      body: JSON.stringify({ runtime: "container", source, timeoutMs }),
    });
    if (res.status !== 200 || !res.body) await this.#expect(res, 200, "exec (SSE)");
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (!reader) throw new Error("exec (SSE): no body");
    const arrivals: Arrival[] = [];
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const at = performance.now();
      buffer += value;
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
        const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
        arrivals.push({ event, at, data });
      }
    }
    return arrivals;
  }

  /** Every entry name of directory `path` (all pages), as the Durable Object has it. */
  async list(path: string): Promise<Set<string>> {
    const names = new Set<string>();
    let after: string | undefined;
    do {
      const query = new URLSearchParams({ limit: "10000", ...(after ? { after } : {}) });
      const res = await fetch(`${this.#base}/files/${path}?${query}`, { headers: this.#headers() });
      const page = JSON.parse(await this.#expect(res, 200, `list ${path}`)) as {
        entries: { name: string }[];
        next?: string;
      };
      for (const entry of page.entries) names.add(entry.name);
      after = page.next;
    } while (after !== undefined);
    return names;
  }
}
