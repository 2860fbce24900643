/**
 * Test support for the server: a Config on 127.0.0.1 with an OS-chosen port and temporary
 * directories, a started daemon, and an authorized fetch against it.
 */
import { randomBytes } from "node:crypto";
import type { Config } from "../src/config.ts";
import { type Daemon, type DaemonParts, startDaemon } from "../src/server/daemon.ts";
import { tempDir } from "./exec-harness.ts";

/** A test configuration (fresh secret, port 0, temporary mount point and state). */
export function testConfig(overrides: Partial<Config> = {}): Config {
  return {
    host: "127.0.0.1",
    port: 0,
    mountPoint: tempDir("computerd-mount-"),
    mountBackend: "none",
    stateDir: tempDir("computerd-state-"),
    secret: randomBytes(24).toString("hex"),
    execOutputCap: 1024 * 1024,
    execTimeoutMs: 20_000,
    execMaxTimeoutMs: 60_000,
    execKillGraceMs: 500,
    execSandbox: "none",
    egress: "none",
    egressAllow: "",
    sandboxUid: 65534,
    sandboxRoot: "",
    execLogDir: "",
    execRetain: 16,
    uploadIntervalMs: 150,
    dialBack: "",
    ...overrides,
  };
}

/** A started daemon with helpers bound to it. */
export interface TestDaemon extends Daemon {
  config: Config;
  base: string;
  /** fetch with the bearer secret (unless `init.headers.authorization` says otherwise). */
  call(path: string, init?: RequestInit): Promise<Response>;
}

/** Starts a daemon for a test; close it in afterEach/afterAll. */
export async function testDaemon(
  overrides: Partial<Config> = {},
  parts: DaemonParts = {},
): Promise<TestDaemon> {
  const config = testConfig(overrides);
  const daemon = await startDaemon(config, parts);
  const base = `http://127.0.0.1:${daemon.port}`;
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${config.secret}`,
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  return Object.assign(daemon, { config, base, call });
}

/** One parsed Server-Sent Event. */
export interface SseEvent {
  event: string;
  id?: string;
  data: unknown;
}

/** Reads a whole SSE response into events. */
export async function readSse(response: Response): Promise<SseEvent[]> {
  const text = await response.text();
  const events: SseEvent[] = [];
  for (const block of text.split("\n\n")) {
    if (block.trim() === "") continue;
    const event: SseEvent = { event: "message", data: undefined };
    for (const line of block.split("\n")) {
      const colon = line.indexOf(": ");
      const [key, value] = colon < 0 ? [line, ""] : [line.slice(0, colon), line.slice(colon + 2)];
      if (key === "event") event.event = value;
      else if (key === "id") event.id = value;
      else if (key === "data") event.data = JSON.parse(value);
    }
    events.push(event);
  }
  return events;
}
