/**
 * node:zlib for just-bash (gzip, gunzip, zcat, tar), loaded at its first use instead of at the
 * shell guest's start (scripts/lazy-guest-modules.ts points just-bash's `node:zlib` imports
 * here): importing node:zlib makes workerd load and evaluate its Node compatibility modules
 * (zlib, streams, events, buffer) in every new shell isolate, ~6 ms of CPU (docs/BENCH.md, "Shell
 * cold start"), for commands most scripts never run. These are the names just-bash imports.
 */
import type * as Zlib from "node:zlib";

let zlib: typeof Zlib | undefined;

function load(): typeof Zlib {
  zlib ??= process.getBuiltinModule("node:zlib");
  return zlib;
}

export function gzipSync(...args: Parameters<typeof Zlib.gzipSync>): ReturnType<typeof Zlib.gzipSync> {
  return load().gzipSync(...args);
}

export function gunzipSync(...args: Parameters<typeof Zlib.gunzipSync>): ReturnType<typeof Zlib.gunzipSync> {
  return load().gunzipSync(...args);
}

/** zlib's constants, read on first use (just-bash reads them by name: `constants.Z_BEST_SPEED`). */
export const constants: typeof Zlib.constants = new Proxy({} as typeof Zlib.constants, {
  get: (_target, name) => Reflect.get(load().constants, name),
  has: (_target, name) => Reflect.has(load().constants, name),
  ownKeys: () => Reflect.ownKeys(load().constants),
  getOwnPropertyDescriptor: (_target, name) => {
    const descriptor = Reflect.getOwnPropertyDescriptor(load().constants, name);
    // A proxy may not report a non-configurable property its target lacks.
    return descriptor === undefined ? undefined : { ...descriptor, configurable: true };
  },
});
