/**
 * Changes the FUSE loop answered itself (native/loop-changes.c create_here, unlink_here,
 * mkdir_here, link_here, the atime of a read_here and times_here's setattr of times), handed to
 * JS in order and without a request to reply to: each is made in the mirror exactly as the loop
 * answered it. The loop counts them itself ("create (loop)", "unlink (loop)", "mkdir (loop)",
 * "link (loop)", "read (loop)", "setattr (loop)").
 */
import { type CreateAnsweredContext, createAnswered } from "./fuse3-create-answered.ts";
import { linkAnswered } from "./fuse3-link-answered.ts";
import { type MkdirAnsweredContext, mkdirAnswered } from "./fuse3-mkdir-answered.ts";
import { OP } from "./fuse3-native.ts";
import { timesAnswered } from "./fuse3-times-answered.ts";
import { type UnlinkAnsweredContext, unlinkAnswered } from "./fuse3-unlink-answered.ts";

export type LoopAnsweredContext = CreateAnsweredContext & UnlinkAnsweredContext & MkdirAnsweredContext;

/** The requests the loop answered that are made here. */
export const LOOP_ANSWERED: ReadonlySet<number> = new Set([
  OP.create_answered,
  OP.unlink_answered,
  OP.mkdir_answered,
  OP.link_answered,
  OP.read_answered,
  OP.setattr_answered,
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
  else if (op === OP.link_answered) linkAnswered(c, args);
  else if (op === OP.read_answered) readAnswered(c, args);
  else if (op === OP.setattr_answered) timesAnswered(c, args);
  else return false;
  return true;
}

/**
 * A read the loop answered from bytes it kept (native/loop-contents.h) moved the file's atime
 * ([ino, sec, nsec]): stored as the loop set it in its own attributes, which it keeps.
 */
function readAnswered(c: LoopAnsweredContext, a: readonly (number | string | Buffer)[]): void {
  const [ino, sec, nsec] = a as [number, number, number];
  c.loopAttrs.keeping(ino, () => c.fs.accessed(ino, c.nodes.pathOf(ino) ?? "", { sec, nsec }));
}
