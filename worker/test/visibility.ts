/**
 * Cross-runtime visibility: a file written by one side (a runtime's exec, or the files API) is
 * seen by every other side right after the write returns. Writers and readers speak HTTP only
 * (ContractFetch), so workerd (worker/test/visibility.test.ts: shell, js, API) and the real
 * fleet (test/e2e/visibility.test.ts: with the container too) share them.
 */
import { expect } from "vitest";
import type { ContractFetch, ContractResult } from "./exec-contract.ts";

/** A side that writes or reads files. */
export type Side = "api" | "container" | "shell" | "js";

async function exec(
  fetch: ContractFetch,
  id: string,
  runtime: Side,
  source: string,
): Promise<ContractResult> {
  const res = await fetch(`/v1/computers/${id}/exec`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ runtime, source }),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  const result = JSON.parse(text) as ContractResult;
  expect(result.status, result.stderr).toBe("completed");
  return result;
}

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** Writes `content` to `path` (relative to /workspace, parents created) as `side`. */
export async function writeAs(
  fetch: ContractFetch,
  id: string,
  side: Side,
  path: string,
  content: string,
): Promise<void> {
  if (side === "api") {
    const res = await fetch(`/v1/computers/${id}/files/${path}`, { method: "PUT", body: content });
    expect(res.status).toBe(201);
    await res.body?.cancel();
    return;
  }
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : ".";
  if (side === "js") {
    await exec(
      fetch,
      id,
      side,
      `import { mkdir, writeFile } from "node:fs/promises";
       export default async () => { await mkdir(${JSON.stringify(dir)}, { recursive: true }); await writeFile(${JSON.stringify(path)}, ${JSON.stringify(content)}); }`,
    );
    return;
  }
  await exec(fetch, id, side, `mkdir -p ${quote(dir)} && printf '%s' ${quote(content)} > ${quote(path)}`);
}

/** Reads `path` as `side`. */
export async function readAs(fetch: ContractFetch, id: string, side: Side, path: string): Promise<string> {
  if (side === "api") {
    const res = await fetch(`/v1/computers/${id}/files/${path}`);
    expect(res.status).toBe(200);
    return res.text();
  }
  if (side === "js") {
    const result = await exec(
      fetch,
      id,
      side,
      `import { readFile } from "node:fs/promises"; export default () => readFile(${JSON.stringify(path)}, "utf8");`,
    );
    return String(result.value);
  }
  return (await exec(fetch, id, side, `cat ${quote(path)}`)).stdout;
}

/** Every ordered pair of distinct sides. */
export function pairs(sides: readonly Side[]): [Side, Side][] {
  return sides.flatMap((writer) =>
    sides.filter((reader) => reader !== writer).map((reader): [Side, Side] => [writer, reader]),
  );
}

/** Writes as `writer`, then reads as `reader`, and expects the same content. */
export async function checkPair(fetch: ContractFetch, id: string, writer: Side, reader: Side): Promise<void> {
  const path = `vis/${writer}-to-${reader}/f.txt`;
  const content = `written by ${writer} for ${reader} ${crypto.randomUUID()}`;
  await writeAs(fetch, id, writer, path, content);
  expect(await readAs(fetch, id, reader, path)).toBe(content);
}
