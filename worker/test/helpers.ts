/**
 * Shared helpers of the worker's HTTP tests: fresh computer ids, authenticated fetches
 * and a snapshot of a computer's whole tree (to assert that a refused request changed nothing).
 */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";

/** The admin token the test config binds (worker/vitest.config.ts). */
export const ADMIN = "test-admin-token";
const BASE = "http://computer.test";

/** A computer id no other test uses. */
export function freshId(prefix = "t"): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 13)}`;
}

/** Fetches `path` (under the API origin) with `token` as bearer (admin by default; null for none). */
export function api(path: string, init: RequestInit & { token?: string | null } = {}): Promise<Response> {
  const { token = ADMIN, ...rest } = init;
  const headers = new Headers(rest.headers);
  if (token !== null) headers.set("Authorization", `Bearer ${token}`);
  return SELF.fetch(`${BASE}${path}`, { ...rest, headers });
}

/** Sends a JSON body. */
export function apiJson(
  method: string,
  path: string,
  body: unknown,
  token: string | null = ADMIN,
): Promise<Response> {
  return api(path, {
    method,
    token,
    headers: { "Content-Type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Creates a computer and returns its id. */
export async function createComputer(body: Record<string, unknown> = {}, id = freshId()): Promise<string> {
  const res = await apiJson("PUT", `/v1/computers/${id}`, body);
  expect(res.status).toBe(201);
  await res.body?.cancel();
  return id;
}

/** Writes a file (admin); expects 201. */
export async function writeFile(
  id: string,
  path: string,
  content: string | Uint8Array<ArrayBuffer>,
): Promise<void> {
  const res = await api(`/v1/computers/${id}/files/${path}`, { method: "PUT", body: content });
  expect(res.status, await res.clone().text()).toBe(201);
  await res.body?.cancel();
}

/** Reads a file's text (admin); expects 200. */
export async function readText(id: string, path: string): Promise<string> {
  const res = await api(`/v1/computers/${id}/files/${path}`);
  expect(res.status).toBe(200);
  return res.text();
}

/** Runs one POST /fs op. */
export function fsOp(
  id: string,
  op: Record<string, unknown>,
  token: string | null = ADMIN,
): Promise<Response> {
  return apiJson("POST", `/v1/computers/${id}/fs`, op, token);
}

/** Issues a computer token. */
export async function mintToken(id: string, scope: "ro" | "rw", ttlSeconds = 600): Promise<string> {
  const res = await apiJson("POST", `/v1/computers/${id}/tokens`, { scope, ttlSeconds });
  expect(res.status).toBe(201);
  const { token } = (await res.json()) as { token: string };
  return token;
}

/** Asserts a 200 answer (showing the body when it is not) and returns its JSON body. */
export async function expectOk(res: Response): Promise<Record<string, unknown>> {
  const text = await res.text();
  expect(res.status, text).toBe(200);
  return JSON.parse(text) as Record<string, unknown>;
}

/** Asserts an error response's status and code; returns its body. */
export async function expectError(
  res: Response,
  status: number,
  code: string,
): Promise<{ error: { code: string; message: string; path?: string } }> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  if (res.status === 304 || text === "") return { error: { code, message: "" } };
  const body = JSON.parse(text) as { error: { code: string; message: string; path?: string } };
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe("string");
  return body;
}

interface Entry {
  name: string;
  type: string;
  size: number;
  mode: string;
  mtime: string;
}

/**
 * Every path of the computer with its type, size, mode, mtime and (for files) content:
 * equal snapshots before and after a request mean the request changed nothing.
 */
export async function snapshot(id: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    const res = await api(`/v1/computers/${id}/files/${dir}`);
    expect(res.status).toBe(200);
    const { entries } = (await res.json()) as { entries: Entry[] };
    for (const e of entries) {
      const path = dir === "" ? e.name : `${dir}/${e.name}`;
      const encoded = path.split("/").map(encodeURIComponent).join("/");
      let content = "";
      if (e.type === "file") content = await readText(id, encoded);
      out[path] = `${e.type} ${e.size} ${e.mode} ${e.mtime} ${content}`;
      if (e.type === "dir") await walk(encoded);
    }
  };
  await walk("");
  const usage = await api(`/v1/computers/${id}`);
  out["#usedBytes"] = String(((await usage.json()) as { usedBytes: number }).usedBytes);
  return out;
}
