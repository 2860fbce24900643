/**
 * The shell guest's start (docs/BENCH.md, "Shell cold start"): evaluating the built bundle throws
 * no error and constructs none. An error made (thrown and caught, or only made) while the
 * bundle's top level runs has that top level on its stack, and V8 collects its source positions by parsing the whole 1.3 MB module again, ~20
 * ms of CPU in every new shell isolate; a dependency's new version can bring such a probe back
 * (lazy-guest-modules.ts keeps turndown's out). Node evaluates the bundle here, with the guest's
 * `cloudflare:workers` a stand-in: like workerd it has no `window` or `document`.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { buildGuests, GUESTS_DIR } from "./build-guests.ts";

const scratch = mkdtempSync(join(tmpdir(), "guest-evaluation-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Imports `bundle` with the inspector pausing on every exception; prints what was thrown. */
const PROBE = `
import { Session } from "node:inspector";
const session = new Session();
session.connect();
const thrown = [];
// An Error only made (not thrown) captures its stack too: count those made by the bundle's code.
const made = [];
const RealError = Error;
globalThis.Error = new Proxy(RealError, {
  construct(target, args, newTarget) {
    made.push(String(args[0]).split("\\n")[0]);
    return Reflect.construct(target, args, newTarget);
  },
});
session.on("Debugger.paused", ({ params }) => {
  thrown.push(\`\${params.data?.description?.split("\\n")[0]} (in \${params.callFrames[0]?.functionName || "top level"})\`);
  session.post("Debugger.resume");
});
session.post("Debugger.enable");
session.post("Debugger.setPauseOnExceptions", { state: "all" });
const guest = await import(process.argv[1]);
globalThis.Error = RealError;
session.post("Debugger.disable");
console.log(JSON.stringify({ thrown, made, exports: Object.keys(guest) }));
`;

const WORKERS_STAND_IN = "data:text/javascript,export class WorkerEntrypoint {} export class RpcTarget {}";

it("evaluating the shell guest bundle throws no error and makes none", { timeout: 60_000 }, async () => {
  await buildGuests();
  const source = readFileSync(join(GUESTS_DIR, "shell.guest.js"), "utf8");
  const bundle = join(scratch, "shell.guest.mjs");
  writeFileSync(bundle, source.replaceAll('"cloudflare:workers"', JSON.stringify(WORKERS_STAND_IN)));
  const output = execFileSync(process.execPath, ["--input-type=module", "--eval", PROBE, bundle], {
    encoding: "utf8",
  });
  const { thrown, made, exports } = JSON.parse(output) as {
    thrown: string[];
    made: string[];
    exports: string[];
  };
  expect(exports).toContain("ShellGuest");
  expect(thrown).toEqual([]);
  // e.g. modern-tar's `new Error("Tar archive is truncated.")` at its top level (tar-command.ts
  // is imported lazily for it).
  expect(made).toEqual([]);
});
