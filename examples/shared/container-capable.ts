/**
 * Whether the examples that run commands in the container runtime can run here: the local
 * fleet's `computerd host` needs root, /dev/fuse and bubblewrap. On CI (and with
 * COMPUTER_REQUIRE=all) a machine without them fails those tests instead of skipping them;
 * elsewhere they skip and say why.
 */
import { canRun, containerMissing } from "@computer/fleet/capabilities";

/** True when the container examples run here. */
export const runContainerExamples = canRun("the container examples", containerMissing());
