/**
 * The exec API contract (docs/API.md "Exec") as cases that run unchanged against every runtime:
 * exit codes, stdout/stderr order while running, stdin, env, cwd, timeout, output cap, kill,
 * re-attach, list. The same source is a shell command for `container` and `shell` and an ES
 * module for `js`. Environment-agnostic (it only speaks HTTP through `ContractApi`), so the
 * workerd suite (worker/test/exec-contract.test.ts) and the local fleet's suite
 * (test/e2e/exec-contract.test.ts) share it.
 */
import type { ExecResult } from "@computer/sdk/contract";
import { expect } from "vitest";
import { dataOf, type Frame, FrameReader } from "./sse.ts";

/** The runtimes of docs/API.md. */
export type ContractRuntime = "container" | "shell" | "js";

/** An authenticated fetch of API paths (`/v1/...`). */
export type ContractFetch = (path: string, init?: RequestInit) => Promise<Response>;

/** The result object of docs/API.md. */
export type ContractResult = ExecResult;

/** One computer and one runtime, as a case sees them. */
export class ContractClient {
  readonly runtime: ContractRuntime;
  readonly computer: string;
  readonly #fetch: ContractFetch;

  constructor(fetch: ContractFetch, computer: string, runtime: ContractRuntime) {
    this.#fetch = fetch;
    this.computer = computer;
    this.runtime = runtime;
  }

  /** `sh` for container/shell, `js` for js. */
  source(sh: string, js: string): string {
    return this.runtime === "js" ? js : sh;
  }

  /** POST /exec. */
  exec(body: Record<string, unknown>, sse = false): Promise<Response> {
    return this.#fetch(`/v1/computers/${this.computer}/exec`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...(sse ? { Accept: "text/event-stream" } : {}) },
      body: JSON.stringify({ runtime: this.runtime, ...body }),
    });
  }

  /** POST /exec and the buffered result. */
  async run(body: Record<string, unknown>): Promise<ContractResult> {
    const res = await this.exec(body);
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return JSON.parse(text) as ContractResult;
  }

  /** POST /exec as SSE: its id and a frame reader. */
  async stream(body: Record<string, unknown>): Promise<{ id: string; reader: FrameReader }> {
    const res = await this.exec(body, true);
    expect(res.status).toBe(200);
    const id = res.headers.get("x-exec-id");
    if (id === null) throw new Error("no X-Exec-Id");
    return { id, reader: new FrameReader(res) };
  }

  /** GET /exec/:id. */
  async get(execId: string): Promise<ContractResult> {
    return (await (
      await this.#fetch(`/v1/computers/${this.computer}/exec/${execId}`)
    ).json()) as ContractResult;
  }

  /** GET /exec/:id?follow=1[&after=N] as SSE, read to the end. */
  follow(execId: string, after?: number): Promise<Frame[]> {
    const query = after === undefined ? "follow=1" : `follow=1&after=${after}`;
    return this.#fetch(`/v1/computers/${this.computer}/exec/${execId}?${query}`, {
      headers: { Accept: "text/event-stream" },
    }).then((res) => new FrameReader(res).rest());
  }

  /** DELETE /exec/:id. */
  async kill(execId: string): Promise<ContractResult> {
    const res = await this.#fetch(`/v1/computers/${this.computer}/exec/${execId}`, { method: "DELETE" });
    expect(res.status).toBe(200);
    return (await res.json()) as ContractResult;
  }

  /** GET /exec ids, newest first. */
  async list(): Promise<string[]> {
    const res = await this.#fetch(`/v1/computers/${this.computer}/exec`);
    return ((await res.json()) as { execs: { id: string }[] }).execs.map((e) => e.id);
  }

  /** PUT /files/<path>. */
  async put(path: string, content: string): Promise<void> {
    const res = await this.#fetch(`/v1/computers/${this.computer}/files/${path}`, {
      method: "PUT",
      body: content,
    });
    expect(res.status).toBe(201);
    await res.body?.cancel();
  }
}

/** One case of the contract. */
export interface ContractCase {
  name: string;
  /** Runs the case; `hasFiles` is false where the runtime cannot see the computer's files. */
  run(client: ContractClient, hasFiles: boolean): Promise<void>;
}

/** The output events of `frames`, merged where one stream continues (pieces may split anywhere). */
export function outputSequence(frames: Frame[]): [string, string][] {
  const out: [string, string][] = [];
  for (const frame of frames) {
    if (frame.event !== "stdout" && frame.event !== "stderr") continue;
    const { data } = dataOf<{ data: string }>(frame);
    const last = out.at(-1);
    if (last !== undefined && last[0] === frame.event) last[1] += data;
    else out.push([frame.event, data]);
  }
  return out;
}

const utf8Length = (text: string) => new TextEncoder().encode(text).byteLength;

/** The cases, in the order they run. */
export const CONTRACT_CASES: ContractCase[] = [
  {
    name: "exit 0: completed, stdout, and the same result from GET",
    async run(c) {
      const result = await c.run({
        source: c.source("echo hello", `export default () => { console.log("hello"); }`),
      });
      expect(result).toMatchObject({
        runtime: c.runtime,
        status: "completed",
        exitCode: 0,
        stdout: "hello\n",
        stderr: "",
      });
      expect(result.truncated).toBe(false);
      expect(await c.get(result.id)).toEqual(result);
      expect((await c.list())[0]).toBe(result.id);
    },
  },
  {
    name: "a non-zero exit is a 200 result with status failed",
    async run(c) {
      const result = await c.run({
        source: c.source(
          "echo out; echo oops >&2; exit 3",
          `export default () => { console.log("out"); console.error("oops"); throw new Error("exit"); }`,
        ),
      });
      expect(result).toMatchObject({
        status: "failed",
        exitCode: c.runtime === "js" ? 1 : 3,
        stdout: "out\n",
      });
      expect(result.stderr.startsWith("oops\n")).toBe(true);
    },
  },
  {
    name: "stdout and stderr reach an SSE client in order while it runs",
    async run(c) {
      const { reader } = await c.stream({
        source: c.source(
          "echo a; sleep 0.3; echo b >&2; sleep 0.3; echo c",
          `const pause = () => new Promise((r) => setTimeout(r, 300));
           export default async () => { console.log("a"); await pause(); console.error("b"); await pause(); console.log("c"); }`,
        ),
      });
      const frames = await reader.rest();
      expect(outputSequence(frames)).toEqual([
        ["stdout", "a\n"],
        ["stderr", "b\n"],
        ["stdout", "c\n"],
      ]);
      const exit = frames.at(-1);
      expect(exit?.event).toBe("exit");
      expect(frames.filter((f) => f.event === "exit")).toHaveLength(1);
      expect(dataOf<ContractResult>(exit)).toMatchObject({
        status: "completed",
        stdout: "a\nc\n",
        stderr: "b\n",
      });
      // The first piece arrived well before the exit: output is not held back to the end.
      expect((exit?.at ?? 0) - (frames[0]?.at ?? 0)).toBeGreaterThan(300);
    },
  },
  {
    name: "stdin reaches the program",
    async run(c) {
      const result = await c.run({
        source: c.source("cat", `export default (input, ctx) => { console.log(ctx.stdin.trimEnd()); }`),
        stdin: "one\ntwo\n",
      });
      expect(result).toMatchObject({ status: "completed", stdout: "one\ntwo\n" });
    },
  },
  {
    name: "env reaches the program",
    async run(c) {
      const result = await c.run({
        source: c.source(
          'echo "$GREETING"',
          `export default (input, ctx) => { console.log(ctx.env.GREETING); }`,
        ),
        env: { GREETING: "hi there" },
      });
      expect(result).toMatchObject({ status: "completed", stdout: "hi there\n" });
    },
  },
  {
    name: "cwd is where the program starts",
    async run(c, hasFiles) {
      if (hasFiles) await c.put("sub/dir/here.txt", "here\n");
      const read = hasFiles;
      const result = await c.run({
        source: c.source(
          read ? "pwd && cat here.txt" : "pwd",
          `import { readFile } from "node:fs/promises";
           export default async (input, ctx) => { console.log(ctx.cwd); console.log(await readFile("here.txt", "utf8")); }`,
        ),
        cwd: "sub/dir",
      });
      const expected = read ? "/workspace/sub/dir\nhere\n" : "/workspace/sub/dir\n";
      expect(result.status).toBe("completed");
      expect(result.stdout.replace(/\n\n$/, "\n")).toBe(expected);
    },
  },
  {
    name: "a program past its timeout ends with status timeout",
    async run(c) {
      const t0 = Date.now();
      const result = await c.run({
        source: c.source(
          "echo start; sleep 30",
          `export default async () => { console.log("start"); await new Promise((r) => setTimeout(r, 30000)); }`,
        ),
        timeoutMs: 1000,
      });
      expect(result).toMatchObject({ status: "timeout", stdout: "start\n" });
      expect(Date.now() - t0).toBeLessThan(15_000);
      // The computer keeps working.
      const next = await c.run({
        source: c.source("echo alive", `export default () => { console.log("alive"); }`),
      });
      expect(next).toMatchObject({ status: "completed", stdout: "alive\n" });
    },
  },
  {
    name: "output past the cap is cut and the result says truncated",
    async run(c) {
      const result = await c.run({
        source: c.source(
          "seq 1 300000",
          `export default () => { console.log("x".repeat(3 * 1024 * 1024)); }`,
        ),
      });
      expect(result.status, result.stderr.slice(-500)).toBe("completed");
      expect(result.truncated).toBe(true);
      expect(utf8Length(result.stdout) + utf8Length(result.stderr)).toBeLessThanOrEqual(1024 * 1024);
      expect(result.stdout.startsWith(c.runtime === "js" ? "xxxx" : "1\n2\n3\n")).toBe(true);
    },
  },
  {
    name: "DELETE kills a running program",
    async run(c) {
      const { id, reader } = await c.stream({
        source: c.source(
          "echo started; sleep 30; echo never",
          `export default async () => { console.log("started"); await new Promise((r) => setTimeout(r, 30000)); console.log("never"); }`,
        ),
      });
      const first = await reader.next();
      expect(first?.event).toBe("stdout");
      expect((await c.get(id)).status).toBe("running");
      const killed = await c.kill(id);
      expect(killed.status).toBe("killed");
      const frames = await reader.rest();
      expect(dataOf<ContractResult>(frames.at(-1))).toMatchObject({ id, status: "killed" });
      expect((await c.get(id)).status).toBe("killed");
      // Killing again answers the same result.
      expect((await c.kill(id)).status).toBe("killed");
    },
  },
  {
    name: "a stream can be re-attached from any seq, live and after the end",
    async run(c) {
      const { id, reader } = await c.stream({
        source: c.source(
          "echo one; sleep 0.5; echo two",
          `export default async () => { console.log("one"); await new Promise((r) => setTimeout(r, 500)); console.log("two"); }`,
        ),
      });
      expect((await reader.next())?.event).toBe("stdout");
      const live = await c.follow(id, 0);
      expect(outputSequence(live)).toEqual([["stdout", "two\n"]]);
      expect(live.at(-1)?.event).toBe("exit");
      await reader.rest();
      const replay = await c.follow(id);
      expect(outputSequence(replay)).toEqual([["stdout", "one\ntwo\n"]]);
      expect(dataOf<ContractResult>(replay.at(-1))).toMatchObject({ id, status: "completed" });
    },
  },
];
