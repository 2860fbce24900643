/**
 * The bench Worker: runs the vfs scenarios INSIDE a SQLite-backed Durable Object, one fresh
 * object per repetition. The driver (src/workerd-target.ts) calls `POST /do/<name>/<step>`
 * for setup, empty round trips, run and finish, and times each from outside.
 */

import { DurableObject } from "cloudflare:workers";
import { createHash } from "node:crypto";
import { durableObjectSql, openVfs, type Vfs } from "@computer/vfs";
import { type CountingSql, countingSql, type SqlCounts } from "../src/counting-sql.ts";
import { type BenchSize, type Prepared, type Scenario, scenarioById } from "../src/scenarios.ts";

/** The bindings of the bench Worker (see ./wrangler.jsonc). */
export interface BenchEnv {
  VFS_BENCH: DurableObjectNamespace<VfsBenchObject>;
}

/** What `setup` asks for. */
export interface SetupRequest {
  scenario: string;
  size: BenchSize;
}

/** What `run` reports: the object's own timing and the SQL it executed. */
export interface RunReport {
  insideMs: number;
  sql: SqlCounts;
}

/** What `finish` reports once the run is checked. */
export interface FinishReport {
  dbBytes: number;
}

/** How far the object's clock moved across synchronous work (0: frozen, as in production). */
export interface ClockReport {
  advancedMs: number;
}

function sha256Hex(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** The state one object keeps between the steps of its repetition. */
interface Repetition {
  scenario: Scenario;
  size: BenchSize;
  sql: CountingSql;
  vfs: Vfs;
  prepared: Prepared;
  result?: unknown;
}

/** One repetition's filesystem. Steps must come in order: setup, noop*, run, finish. */
export class VfsBenchObject extends DurableObject<BenchEnv> {
  #state: Repetition | undefined;

  setup(request: SetupRequest): null {
    const scenario = scenarioById(request.scenario);
    const sql = countingSql(durableObjectSql(this.ctx.storage));
    const vfs = openVfs(sql, { sha256: sha256Hex });
    const prepared = scenario.setup(vfs, request.size);
    this.#state = { scenario, size: request.size, sql, vfs, prepared };
    return null;
  }

  noop(): null {
    return null;
  }

  async run(): Promise<RunReport> {
    const state = this.#require();
    state.sql.reset();
    const t0 = performance.now();
    state.result = await state.scenario.run(state.vfs, state.size, state.prepared);
    const insideMs = performance.now() - t0;
    return { insideMs, sql: state.sql.counts() };
  }

  /** Checks the run, reports the database size, then empties the storage so the next object starts clean. */
  async finish(): Promise<FinishReport> {
    const state = this.#require();
    state.scenario.check(state.vfs, state.size, state.prepared, state.result);
    const dbBytes = this.ctx.storage.sql.databaseSize;
    this.#state = undefined;
    await this.ctx.storage.deleteAll();
    return { dbBytes };
  }

  /** Hashes 16 MiB synchronously and reports how far performance.now() moved meanwhile. */
  clock(): ClockReport {
    const data = new Uint8Array(1 << 20);
    const t0 = performance.now();
    for (let i = 0; i < 16; i++) sha256Hex(data);
    return { advancedMs: performance.now() - t0 };
  }

  #require(): Repetition {
    if (!this.#state) {
      throw new Error(
        "this object has no setup state: setup never ran, or the object was reset between steps " +
          "(workerd evicts an object 10 s after its last request began unless preventEviction is set)",
      );
    }
    return this.#state;
  }
}

async function step(
  stub: DurableObjectStub<VfsBenchObject>,
  name: string,
  request: Request,
): Promise<unknown> {
  switch (name) {
    case "setup":
      return stub.setup((await request.json()) as SetupRequest);
    case "noop":
      return stub.noop();
    case "run":
      return stub.run();
    case "finish":
      return stub.finish();
    case "clock":
      return stub.clock();
    default:
      return undefined;
  }
}

// biome-ignore lint/style/noDefaultExport: workerd finds a Worker's handlers on its default export.
export default {
  async fetch(request: Request, env: BenchEnv): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === "/healthz") return new Response("ok");
    const match = /^\/do\/([\w-]+)\/(\w+)$/.exec(url.pathname);
    if (!match || request.method !== "POST") return new Response("not found", { status: 404 });
    const [, objectName = "", stepName = ""] = match;
    const stub = env.VFS_BENCH.get(env.VFS_BENCH.idFromName(objectName));
    try {
      const result = await step(stub, stepName, request);
      if (result === undefined) return new Response(`unknown step ${stepName}`, { status: 404 });
      return Response.json(result);
    } catch (err) {
      return new Response(err instanceof Error ? (err.stack ?? err.message) : String(err), { status: 500 });
    }
  },
} satisfies ExportedHandler<BenchEnv>;
