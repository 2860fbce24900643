/**
 * Whether the examples that run commands in the container runtime can run here: the local
 * fleet's `computerd host` needs root, /dev/fuse and bubblewrap. On CI a machine without them
 * fails those tests instead of skipping them; elsewhere they skip and say why.
 */
import { containerCapable } from "@computer/fleet/capabilities";

/** True when the container examples must run (capable machine, or CI). */
export const runContainerExamples = containerCapable || process.env.CI === "true";

if (!runContainerExamples) {
  console.warn("examples: skipping the container examples: they need root, /dev/fuse and bwrap");
}
