/**
 * Helpers of the shell and js runtime suites: run an exec and get its result together with the
 * runtime's counters from `X-Exec-Metrics` (RPC round trips to the filesystem and their ops).
 */
import { expect } from "vitest";
import type { ContractResult } from "./exec-contract.ts";
import { apiJson } from "./helpers.ts";

/** A result and the runtime's counters. */
export interface MeasuredResult extends ContractResult {
  metrics: Record<string, number>;
}

/** Parses `fsCalls=3, fsOps=12` into numbers. */
export function parseMetrics(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pair of (header ?? "").split(",")) {
    const [name, value] = pair.trim().split("=");
    if (name && value !== undefined) out[name] = Number(value);
  }
  return out;
}

/** Runs `source` on `runtime` of computer `id` and returns the buffered result with its metrics. */
export async function runOn(
  id: string,
  runtime: "shell" | "js",
  source: string,
  extra: Record<string, unknown> = {},
): Promise<MeasuredResult> {
  const res = await apiJson("POST", `/v1/computers/${id}/exec`, { runtime, source, ...extra });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return {
    ...(JSON.parse(text) as ContractResult),
    metrics: parseMetrics(res.headers.get("x-exec-metrics")),
  };
}

/** Like runOn, and expects the exec to complete with exit code 0. */
export async function runOk(
  id: string,
  runtime: "shell" | "js",
  source: string,
  extra: Record<string, unknown> = {},
): Promise<MeasuredResult> {
  const result = await runOn(id, runtime, source, extra);
  expect({ status: result.status, exitCode: result.exitCode }, result.stderr).toEqual({
    status: "completed",
    exitCode: 0,
  });
  return result;
}
