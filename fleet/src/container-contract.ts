/**
 * The container-runtime contract, for every way a computer's container can be launched
 * (`computerd host` processes, the computerd image under docker, ...): driven only through the
 * HTTP API of a running fleet. A file PUT through the API is read by `cat` in the container; a
 * file written in the container is readable as soon as the exec returns (`sync.status:
 * "complete"`); one written 6,000 bytes deep is listed through its parent and removed with its
 * top directory; many small files written by one command are all synced and listed; output
 * streams over SSE before the exit; and the image's userland (container-userland.ts). Call
 * `describeContainerContract` from a test file.
 */
import type { ExecResult as Result } from "@computer/sdk/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { userlandTests } from "./container-userland.ts";
import type { Fleet } from "./fleet.ts";

/** How the suite gets its fleet. */
export interface ContainerContractOptions {
  /** Starts the fleet whose container runtime is under test. */
  start(): Promise<Fleet>;
  /** Files the bulk test writes in one command (default 10,000). */
  manyFiles?: number;
  /** Computer id used by the suite. */
  computerId?: string;
  /** Skip the whole suite (the machine lacks what the launcher needs). */
  skip?: boolean;
  /** Declares launcher-specific tests inside the suite, sharing its fleet and computer. */
  more?: (client: ContractClient) => void;
}

/** A client of one computer of a fleet, for the contract and for launcher-specific tests. */
export class ContractClient {
  fleet: Fleet | undefined;
  readonly id: string;

  constructor(id: string) {
    this.id = id;
  }

  #fleet(): Fleet {
    if (this.fleet === undefined) throw new Error("the fleet is not running");
    return this.fleet;
  }

  url(path: string): string {
    return `${this.#fleet().url}/v1/computers/${this.id}${path}`;
  }

  auth(): Record<string, string> {
    return { Authorization: `Bearer ${this.#fleet().adminToken}` };
  }

  /** Runs `source` in the container runtime and returns the buffered result (asserting HTTP 200). */
  async exec(source: string, timeoutMs = 120_000): Promise<Result> {
    const res = await fetch(this.url("/exec"), {
      method: "POST",
      headers: { ...this.auth(), "Content-Type": "application/json" },
      body: JSON.stringify({ runtime: "container", source, timeoutMs }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    return JSON.parse(text) as Result;
  }

  /** Reads a file through the API (asserting HTTP 200). */
  async read(path: string): Promise<Buffer> {
    const res = await fetch(this.url(`/files/${path}`), { headers: this.auth() });
    expect(res.status).toBe(200);
    return Buffer.from(await res.arrayBuffer());
  }
}

/** Fails with everything the result says when the exec did not complete with exit code 0. */
export function expectCompleted(result: Result): void {
  expect({ status: result.status, exitCode: result.exitCode }, JSON.stringify(result)).toEqual({
    status: "completed",
    exitCode: 0,
  });
}

/** Declares the contract suite under `title` (one fleet, one computer, tests in order). */
export function describeContainerContract(title: string, options: ContainerContractOptions): void {
  const client = new ContractClient(options.computerId ?? "contract");
  const many = options.manyFiles ?? 10_000;
  describe.skipIf(options.skip ?? false)(title, () => {
    beforeAll(async () => {
      client.fleet = await options.start();
      const res = await fetch(client.url(""), { method: "PUT", headers: client.auth() });
      expect(res.status).toBe(201);
      // The whole chain runs for this probe: DO → launcher → computerd → /connect → dial-back.
      const probe = await client.exec("true");
      expectCompleted(probe);
      expect(probe.sync.status).toBe("complete");
    }, 300_000);

    afterAll(async () => {
      await client.fleet?.stop();
    });

    it("a file PUT through the API is read by cat in the container", async () => {
      const put = await fetch(client.url("/files/notes/hello.txt"), {
        method: "PUT",
        headers: client.auth(),
        body: "hello from the API\n",
      });
      expect(put.status).toBe(201);
      const result = await client.exec("cat notes/hello.txt");
      expectCompleted(result);
      expect(result.stdout).toBe("hello from the API\n");
    }, 180_000);

    it("a file written in the container is readable through the API right after the exec returns", async () => {
      const result = await client.exec("mkdir -p out && printf 'made in the container' > out/result.txt");
      expectCompleted(result);
      expect(result.sync.status).toBe("complete");
      expect((await client.read("out/result.txt")).toString()).toBe("made in the container");
    }, 120_000);

    it("a file 6,000 bytes deep written in the container is listed through its parent and removed with its top directory", async () => {
      // 24 names of 250 bytes, each made from the one before: no syscall string is long (cd -P:
      // dash otherwise hands chdir the whole logical path).
      const names = Array.from({ length: 24 }, (_, i) => `${String(i).padStart(2, "0")}${"d".repeat(248)}`);
      const result = await client.exec(
        `for d in ${names.join(" ")}; do mkdir $d && cd -P $d || exit 1; done; printf 'deep down' > f.txt`,
      );
      expectCompleted(result);
      expect(result.sync.status).toBe("complete");
      const parent = names.join("/");
      expect(new TextEncoder().encode(`/${parent}/f.txt`).byteLength).toBeGreaterThan(6000);
      const listing = await fetch(client.url(`/files/${parent}`), { headers: client.auth() });
      expect(listing.status).toBe(200);
      const { entries } = (await listing.json()) as {
        entries: { name: string; type: string; size: number }[];
      };
      expect(entries).toMatchObject([{ name: "f.txt", type: "file", size: 9 }]);
      expect((await client.read(`${parent}/f.txt`)).toString()).toBe("deep down");
      const removed = await fetch(client.url(`/files/${names[0]}?recursive=1`), {
        method: "DELETE",
        headers: client.auth(),
      });
      expect(removed.status).toBe(204);
      const gone = await client.exec(`test ! -e ${names[0]} && echo gone`);
      expectCompleted(gone);
      expect(gone.stdout).toBe("gone\n");
    }, 180_000);

    it(`${many} small files written by one command are synced and listed`, async () => {
      const result = await client.exec(
        `mkdir -p many && cd many && i=0; while [ $i -lt ${many} ]; do echo $i > f$i; i=$((i+1)); done`,
        600_000,
      );
      expectCompleted(result);
      expect(result.sync.status).toBe("complete");
      const names = new Set<string>();
      let after: string | undefined;
      do {
        const query = new URLSearchParams({ limit: "10000", ...(after ? { after } : {}) });
        const res = await fetch(client.url(`/files/many?${query}`), { headers: client.auth() });
        expect(res.status).toBe(200);
        const page = (await res.json()) as { entries: { name: string }[]; next?: string };
        for (const entry of page.entries) names.add(entry.name);
        after = page.next;
      } while (after !== undefined);
      expect(names.size).toBe(many);
      const last = many - 1;
      expect((await client.read(`many/f${last}`)).toString()).toBe(`${last}\n`);
    }, 900_000);

    it("streams output over SSE before the exit", async () => {
      const res = await fetch(client.url("/exec"), {
        method: "POST",
        headers: { ...client.auth(), "Content-Type": "application/json", Accept: "text/event-stream" },
        body: JSON.stringify({ runtime: "container", source: "echo first; sleep 2; echo second" }),
      });
      expect(res.status).toBe(200);
      const reader = res.body?.pipeThrough(new TextDecoderStream()).getReader();
      if (reader === undefined) throw new Error("no body");
      const arrivals: { event: string; at: number; data: string }[] = [];
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event = /^event: (.*)$/m.exec(block)?.[1] ?? "message";
          const data = /^data: (.*)$/m.exec(block)?.[1] ?? "";
          arrivals.push({ event, at: Date.now(), data });
        }
      }
      expect(arrivals.map((a) => a.event)).toEqual(["stdout", "stdout", "exit"]);
      const [first, , exit] = arrivals;
      expect(JSON.parse(first?.data ?? "{}")).toEqual({ seq: 0, data: "first\n" });
      expect((exit?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThan(1500);
      expect(JSON.parse(exit?.data ?? "{}")).toMatchObject({ status: "completed", exitCode: 0 });
    }, 120_000);

    userlandTests(client);
    options.more?.(client);
  });
}
