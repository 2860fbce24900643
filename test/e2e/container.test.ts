/**
 * The container runtime end to end: real `wrangler dev` + real `computerd host` (one
 * `computerd serve` per computer, FUSE mount, bubblewrap sandbox), driven only through the
 * HTTP API with the container-runtime contract (./container-contract.ts): a file PUT through the
 * API is read by `cat` in the container; a file written in the container is readable as soon as
 * the exec returns; 10,000 small files written by one command are all synced and listed; SSE
 * output arrives before the exit. Needs root, /dev/fuse and bwrap (the CI machine has them).
 * The same contract runs against the computerd image in images/test/image.test.ts.
 */

import { startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import { describeContainerContract } from "@computer/fleet/container-contract";

const containerCapable = canRun("the container-runtime contract on computerd host", containerMissing());

describeContainerContract("container runtime (wrangler dev + computerd host + FUSE + bwrap)", {
  start: () => startFleet({ computerdHost: true }),
  computerId: "e2e-container",
  skip: !containerCapable,
});
