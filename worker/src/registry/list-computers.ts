/**
 * `GET /v1/computers` (admin): a page of the registry, each entry described by its own DO
 * (so quota and usage are current). Ids whose DO no longer has a computer are skipped.
 */
import type { ComputerJson } from "../computer/lifecycle.ts";
import type { Env } from "../env.ts";
import { REGISTRY_NAME } from "./registry.ts";

/** The listing → 200 `{ computers: [...], next? }`. */
export async function listComputers(env: Env, after: string | undefined, limit: number): Promise<Response> {
  const page = await env.REGISTRY.getByName(REGISTRY_NAME).list(after, limit);
  const described = await Promise.all(page.entries.map(({ id }) => env.COMPUTER.getByName(id).describe()));
  const computers: ComputerJson[] = described.flatMap((c) => (c === null ? [] : [c]));
  return Response.json(page.next === undefined ? { computers } : { computers, next: page.next });
}
