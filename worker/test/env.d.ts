/** Types of the `cloudflare:test` module for the worker's tests: its `env` is the Worker's Env. */
/// <reference types="@cloudflare/vitest-plugin/types" />
import type { Env as WorkerEnv } from "../src/env.ts";

declare global {
  namespace Cloudflare {
    interface Env extends WorkerEnv {}
  }
}
