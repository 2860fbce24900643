/**
 * A small client of one computer's HTTP API for the container e2e suites: create, exec
 * (buffered or as Server-Sent Events with arrival times), files in and out, full listings.
 */

import type { Fleet } from "@computer/fleet";
import { expect } from "vitest";

/** An exec result as the API returns it. */
export interface ExecResult {
  id: string;
  status: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  durationMs: number;
  sync: { status: string; rev?: number; conflicts: unknown[] };
  error?: { code: string; message: string };
}

/** One SSE event and when it arrived (performance.now()). */
export interface Arrival {
  event: string;
  at: number;
  data: string;
}

/** The API of computer `id` on `fleet`. */
export class ComputerApi {
  readonly fleet: Fleet;
  readonly id: string;

  constructor(fleet: Fleet, id: string) {
    this.fleet = fleet;
    this.id = id;
  }

  url(path: string): string {
    return `${this.fleet.url}/v1/computers/${this.id}${path}`;
  }

  auth(): Record<string, string> {
    return { Authorization: `Bearer ${this.fleet.adminToken}` };
  }

  /** PUT the computer (201). */
  async create(): Promise<void> {
    const res = await fetch(this.url(""), { method: "PUT", headers: this.auth() });
    expect(res.status, await res.text()).toBe(201);
  }

  /** Runs `source` in the container runtime and returns the finished result. */
  async exec(source: string, timeoutMs = 120_000): Promise<ExecResult> {
    const res = await fetch(this.url("/exec"), {
      method: "POST",
      headers: { ...this.auth(), "Content-Type": "application/json" },
      body: JSON.stringify({ runtime: "container", source, timeoutMs }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return JSON.parse(text) as ExecResult;
  }

  /** Runs `source` with `Accept: text/event-stream`; every event with its arrival time. */
  async execEvents(source: string, timeoutMs = 120_000): Promise<Arrival[]> {
    const res = await fetch(this.url("/exec"), {
      method: "POST",
      headers: { ...this.auth(), "Content-Type": "application/json", Accept: "text/event-stream" },
      body: JSON.stringify({ runtime: "container", source, timeoutMs }),
    });
    expect(res.status).toBe(200);
    const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
    if (reader === undefined) throw new Error("no body");
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

  /** PUT a file (201). */
  async put(path: string, body: string): Promise<void> {
    const res = await fetch(this.url(`/files/${path}`), { method: "PUT", headers: this.auth(), body });
    expect(res.status, await res.text()).toBe(201);
  }

  /** GET a file: status and text. */
  async get(path: string): Promise<{ status: number; text: string }> {
    const res = await fetch(this.url(`/files/${path}`), { headers: this.auth() });
    return { status: res.status, text: await res.text() };
  }

  /** Every entry name of a directory (all pages). */
  async list(path: string): Promise<Set<string>> {
    const names = new Set<string>();
    let after: string | undefined;
    do {
      const query = new URLSearchParams({ limit: "10000", ...(after ? { after } : {}) });
      const res = await fetch(this.url(`/files/${path}?${query}`), { headers: this.auth() });
      expect(res.status).toBe(200);
      const page = (await res.json()) as { entries: { name: string }[]; next?: string };
      for (const entry of page.entries) names.add(entry.name);
      after = page.next;
    } while (after !== undefined);
    return names;
  }
}

/** Fails with everything the result says unless it completed with exit code 0 and synced. */
export function expectSynced(result: ExecResult): void {
  expect(
    { status: result.status, exitCode: result.exitCode, sync: result.sync.status },
    JSON.stringify(result),
  ).toEqual({ status: "completed", exitCode: 0, sync: "complete" });
}

/** The `[id] {"event":"fence",...}` lines computerd host printed for computer `id`. */
export function fenceEvents(
  fleet: Fleet,
  id: string,
): { ms: number; flushMs: number; batches: number; changes: number }[] {
  const events = [];
  for (const line of fleet.hostOutput().split("\n")) {
    const prefix = `[${id}] `;
    const at = line.indexOf(prefix);
    if (at < 0) continue;
    try {
      const event = JSON.parse(line.slice(at + prefix.length)) as { event?: string };
      if (event.event === "fence")
        events.push(event as { ms: number; flushMs: number; batches: number; changes: number });
    } catch {
      // Not an event line.
    }
  }
  return events;
}
