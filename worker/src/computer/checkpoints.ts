/**
 * Named checkpoints of a computer's tree: create, list, restore. Content addressing makes
 * each a metadata copy; a restore replaces the whole tree in one transaction.
 */
import { ApiError } from "../http/errors.ts";
import { readJsonObject, requireString } from "../http/json-body.ts";
import { CHECKPOINT_NAME } from "../http/route.ts";
import type { ComputerContext } from "./context.ts";
import { FORK_SNAPSHOT_PREFIX } from "./fork.ts";

function checkName(name: string): void {
  if (!CHECKPOINT_NAME.test(name) || name.startsWith(FORK_SNAPSHOT_PREFIX)) {
    throw new ApiError(
      "EINVAL",
      `invalid checkpoint name: must match ${CHECKPOINT_NAME.source} and not start with ${FORK_SNAPSHOT_PREFIX}`,
    );
  }
}

/** POST `{ name }` → 201 `{ name, rev, createdAt }`; an existing name is 409 EEXIST. */
export async function createCheckpoint(host: ComputerContext, request: Request): Promise<Response> {
  const body = await readJsonObject(request);
  host.requireComputer();
  const name = requireString(body, "name");
  checkName(name);
  const info = host.vfs().checkpoint(name);
  await host.touched();
  return Response.json(info, { status: 201 });
}

/** GET → `{ checkpoints: [{ name, rev, createdAt }] }`. */
export function listCheckpoints(host: ComputerContext): Response {
  host.requireComputer();
  const checkpoints = host
    .vfs()
    .listCheckpoints()
    .filter((c) => !c.name.startsWith(FORK_SNAPSHOT_PREFIX));
  return Response.json({ checkpoints });
}

/** POST .../:name/restore → 200 `{ name, rev }` (rev: the revision after the restore); 404 if unknown. */
export async function restoreCheckpoint(host: ComputerContext, name: string): Promise<Response> {
  host.requireComputer();
  checkName(name);
  const vfs = host.vfs();
  vfs.restoreCheckpoint(name);
  await host.touched();
  return Response.json({ name, rev: vfs.rev() });
}
