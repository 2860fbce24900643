/**
 * The real `npm install` of the project scenarios on the whole product: a container exec until
 * the Durable Object holds every installed file. The computer is its own (room for the
 * install), created with the host's network (egress "all") so npm can reach the registry.
 *
 * Untimed first: the project's package.json and lockfile go in through the files API, then one
 * exec fills npm's cache from the registry in the container's own root (`$HOME/.npm`, outside
 * /workspace: never synced, as a developer's ~/.npm) with an install into /tmp, removed after.
 * Timed: one exec of `npm ci --offline` into /workspace/app (timed inside the command), plus
 * from its last output to the exit event, which the DO sends once it holds every file. Then the
 * DO's listing of node_modules is checked against the container's, and the computer deleted.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Computer } from "@computer/sdk";
import { computerdDelta } from "./computerd-counters.ts";
import { type Arrival, assertSynced, containerArrivals, containerExec, countEntries } from "./fleet-exec.ts";
import { type FleetScenario, fenceDetail } from "./fleet-scenarios.ts";
import { checkNpmInstall, NPM_CI_FLAGS, NPM_INSTALL_MAX_REPS, npmInstallName } from "./project-scenarios.ts";
import { CHECK_PRELUDE } from "./scenarios.ts";
import type { NpmProject } from "./sizes.ts";

const FILES = ["package.json", "package-lock.json"];
const CACHE = "/root/.npm";
const WARM_DIR = "/tmp/npm-warm";
/** Filling the cache downloads the whole tree (tens of MB for the web application). */
const WARM_TIMEOUT_MS = 1_800_000;

/** `script` as one single-quoted word for sh (the container runs its source with /bin/sh). */
export function bashScript(script: string): string {
  return `bash -c '${script.replaceAll("'", "'\\''")}'`;
}

/** All stdout of an exec's events, and its exit event (throws when there is none). */
function outcome(events: Arrival[]): { stdout: string; exit: Arrival & { type: "exit" } } {
  const stdout = events.map((e) => (e.type === "stdout" ? e.data : "")).join("");
  const exit = events.find((e): e is Arrival & { type: "exit" } => e.type === "exit");
  if (!exit) throw new Error(`no exit event: ${JSON.stringify(events).slice(-800)}`);
  return { stdout, exit };
}

async function warm(computer: Computer, apiUrl: string): Promise<number> {
  const started = performance.now();
  // Loaded here, not at the top: the image's copy of bench (bench-host) runs no fleet scenario
  // and has no @computer/fleet.
  const { localTrust } = await import("@computer/fleet/local-trust");
  const env = await localTrust(computer, apiUrl);
  const script = `set -eo pipefail
rm -rf ${WARM_DIR} && mkdir -p ${WARM_DIR} && cd ${WARM_DIR}
cp /workspace/app/package.json /workspace/app/package-lock.json .
npm ci ${NPM_CI_FLAGS} --cache ${CACHE} > /dev/null
cd / && rm -rf ${WARM_DIR}`;
  const { events } = await containerArrivals(computer, bashScript(script), WARM_TIMEOUT_MS, env);
  const { exit } = outcome(events);
  if (exit.result.exitCode !== 0) {
    const stderr = events.map((e) => (e.type === "stderr" ? e.data : "")).join("");
    throw new Error(`warming npm's cache in the container failed: ${stderr.slice(-600)}`);
  }
  return performance.now() - started;
}

export function fleetNpmInstall(project: NpmProject): FleetScenario {
  return {
    name: `${npmInstallName(project)}, synced`,
    id: "npm-install-fleet",
    timed:
      "container exec of npm ci --offline into /workspace, then until the exit event (every installed file in the DO)",
    baseline: "npm-install",
    limitVsDisk: 1.2,
    // As many as the bare mount's install (maxReps 3): one sample swung 1.1–1.4x the disk
    // between runs on one machine (docs/BENCH.md, "Nineteenth round").
    samples: (reps) => Math.min(reps, NPM_INSTALL_MAX_REPS),
    warmups: () => 0,
    async measure({ client, fenceEvents }, label) {
      const id = `npm-${label}`;
      await client.computers.create(id, { quotaBytes: 8 * 1024 ** 3, egress: "all" });
      const computer = client.computer(id);
      try {
        for (const file of FILES)
          await computer.files.write(`app/${file}`, readFileSync(join(project.dir, file)));
        const warmMs = await warm(computer, client.url);
        const before = fenceEvents(id).at(-1);
        const script = `set -eo pipefail
cd /workspace/app
t0=$EPOCHREALTIME
npm ci --offline ${NPM_CI_FLAGS} --cache ${CACHE} > /dev/null
t1=$EPOCHREALTIME
echo "npm $t0 $t1"
echo done`;
        const { events, metrics } = await containerArrivals(computer, bashScript(script), WARM_TIMEOUT_MS);
        const after = fenceEvents(id).at(-1);
        const { stdout, exit } = outcome(events);
        const stamp = stdout.split("\n").find((l) => l.startsWith("npm "));
        const done = events.find((e) => e.type === "stdout" && e.data.includes("done"));
        if (!stamp || !done) throw new Error(`unexpected events: ${JSON.stringify(events).slice(-800)}`);
        assertSynced(exit.result);
        const [, t0, t1] = stamp.trim().split(" ");
        const npmMs = (Number(t1) - Number(t0)) * 1000;
        const fenceMs = exit.at - done.at;
        const check = await containerExec(
          computer,
          `cd /workspace/app && ${bashScript(`${CHECK_PRELUDE}\n${checkNpmInstall(project)}\nls -A node_modules | wc -l`)}`,
          WARM_TIMEOUT_MS,
        );
        assertSynced(check);
        const inContainer = Number(check.stdout.trim().split("\n").at(-1));
        const inDo = await countEntries(computer, "app/node_modules");
        if (inDo !== inContainer)
          throw new Error(
            `the Durable Object lists ${inDo} entries in node_modules, the container ${inContainer}`,
          );
        const computerd =
          after?.counters && after.key !== before?.key
            ? computerdDelta(before?.counters, after.counters)
            : {};
        const fence = after && after.key !== before?.key ? fenceDetail(after) : {};
        return {
          ms: npmMs + fenceMs,
          detail: { npmMs, fenceMs, warmMs, topLevelEntries: inDo, ...fence, ...computerd, ...metrics },
        };
      } finally {
        await computer.delete();
      }
    },
  };
}
