/**
 * Changes of names the FUSE loop answered itself (native/fuse3.c create_here, unlink_here,
 * mkdir_here),
 * handed to JS in order and without a request to reply to: each is made in the mirror exactly as
 * the loop answered it. The loop counts them itself ("create (loop)", "unlink (loop)", "mkdir (loop)").
 */
import { type CreateAnsweredContext, createAnswered } from "./fuse3-create-answered.ts";
import { type MkdirAnsweredContext, mkdirAnswered } from "./fuse3-mkdir-answered.ts";
import { OP } from "./fuse3-native.ts";
import { type UnlinkAnsweredContext, unlinkAnswered } from "./fuse3-unlink-answered.ts";

export type LoopAnsweredContext = CreateAnsweredContext & UnlinkAnsweredContext & MkdirAnsweredContext;

/** The requests the loop answered that are made here. */
export const LOOP_ANSWERED: ReadonlySet<number> = new Set([
  OP.create_answered,
  OP.unlink_answered,
  OP.mkdir_answered,
]);

/** Makes the change of `op` if the loop answered it; false for any other request. */
export function loopAnswered(
  c: LoopAnsweredContext,
  op: number,
  args: readonly (number | string | Buffer)[],
): boolean {
  if (op === OP.create_answered) createAnswered(c, args);
  else if (op === OP.unlink_answered) unlinkAnswered(c, args);
  else if (op === OP.mkdir_answered) mkdirAnswered(c, args);
  else return false;
  return true;
}
