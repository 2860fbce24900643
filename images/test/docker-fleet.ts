/**
 * Test support for the image's suites: a local fleet (the local Worker) whose container runtime is
 * the docker host running IMAGE (`make image` first; IMAGE overrides the reference).
 */
import { execFileSync } from "node:child_process";
import { type Fleet, startFleet } from "@computer/fleet";
import { hostVars } from "@computer/fleet/computerd-host";
import { startDockerHost } from "../src/docker-host.ts";

/** The image the suites run. */
export const IMAGE = process.env.IMAGE ?? "computer/computerd:latest";

function imageExists(): boolean {
  try {
    execFileSync("docker", ["image", "inspect", IMAGE], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/** Starts the docker host and a fleet over it; `stop()` ends both. */
export async function startDockerFleet(): Promise<Fleet> {
  if (!imageExists()) throw new Error(`no image ${IMAGE}: run \`make image\` first`);
  const token = `docker-host-${crypto.randomUUID()}`;
  const echo = process.env.E2E_VERBOSE === "1";
  const host = await startDockerHost({ image: IMAGE, token, log: echo ? console.log : undefined });
  try {
    const fleet = await startFleet({ vars: hostVars(host.port, token) });
    return {
      ...fleet,
      async stop() {
        await fleet.stop();
        await host.close();
      },
    };
  } catch (error) {
    await host.close();
    throw error;
  }
}
