/** Types of the `cloudflare:test` module for the worker's tests: `env` is the Worker's Env. */
/// <reference types="@cloudflare/vitest-plugin/types" />
import type { Env } from "../src/env.ts";

declare global {
  namespace Cloudflare {
    interface Env extends import("../src/env.ts").Env {}
  }
}

export type { Env };
