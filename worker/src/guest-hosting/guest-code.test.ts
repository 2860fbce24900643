/**
 * The shell guest's compatibility settings (guest-code.ts): an isolate loaded with them has the
 * platform's timers and the `process` of before process v2 (workerd does not evaluate Node's
 * process and timers modules when it starts), and `process.getBuiltinModule` still loads the
 * Node modules the shell uses (node:zlib for gzip, node:async_hooks for html-to-markdown).
 */
import { env } from "cloudflare:test";
import { expect, it } from "vitest";
import { GUEST_COMPATIBILITY_DATE, SHELL_GUEST_COMPATIBILITY_FLAGS } from "./guest-code.ts";

/** What the probe reports about the isolate it runs in. */
const PROBE = `
import { WorkerEntrypoint } from "cloudflare:workers";
export class Probe extends WorkerEntrypoint {
  facts() {
    const timer = setTimeout(() => {}, 0);
    clearTimeout(timer);
    const zlib = process.getBuiltinModule("node:zlib");
    const gz = zlib.gzipSync(new TextEncoder().encode("hello"));
    return {
      timer: typeof timer,
      processOn: typeof process.on,
      gunzipped: new TextDecoder().decode(zlib.gunzipSync(gz)),
      asyncLocalStorage: typeof process.getBuiltinModule("node:async_hooks").AsyncLocalStorage,
    };
  }
}
`;

it("a shell guest's isolate has the platform's timers, process v1 and Node's modules on demand", async () => {
  const worker = env.LOADER.get(`guest-code-test-${crypto.randomUUID()}`, () => ({
    compatibilityDate: GUEST_COMPATIBILITY_DATE,
    compatibilityFlags: SHELL_GUEST_COMPATIBILITY_FLAGS,
    mainModule: "probe.js",
    modules: { "probe.js": PROBE },
    globalOutbound: null,
  }));
  const probe = worker.getEntrypoint("Probe") as unknown as { facts(): Promise<Record<string, string>> };
  expect(await probe.facts()).toEqual({
    timer: "number",
    processOn: "undefined",
    gunzipped: "hello",
    asyncLocalStorage: "function",
  });
});
