/**
 * Fleet scenarios of the whole product beyond the sync fence: the exec round trip of the shell
 * and js runtimes (the container's is in fleet-scenarios.ts), the cold start of each runtime
 * (a new computer until its first exec result), and the real `npm install` of the project
 * scenarios as a container exec until the Durable Object holds every installed file.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ExecResult, RuntimeName } from "@computer/sdk";
import { TRIVIAL } from "../exec-bench/exec-scenarios.ts";
import { assertSynced, containerArrivals, containerExec, countEntries } from "./fleet-exec.ts";
import type { FleetScenario } from "./fleet-scenarios.ts";
import {
  CHECK_NPM_INSTALL,
  NPM_CACHE,
  NPM_PACKAGES,
  NPM_PROJECT,
  WARM_NPM_CACHE,
} from "./project-scenarios.ts";
import { CHECK_PRELUDE } from "./scenarios.ts";

function assertCompleted(result: ExecResult): void {
  if (result.status !== "completed" || result.exitCode !== 0)
    throw new Error(`exec did not complete: ${JSON.stringify(result).slice(0, 500)}`);
}

/** The warm round trip of a trivial program in `runtime` (shell, js), 10 per repetition. */
function roundTrip(runtime: "shell" | "js"): FleetScenario {
  return {
    name: `exec round trip: ${runtime}`,
    id: `exec-${runtime}`,
    timed: `POST /exec {runtime: ${runtime}, source: ${JSON.stringify(TRIVIAL[runtime])}} until the whole result, warm`,
    targetMs: 20,
    samples: (reps) => reps * 10,
    async measure({ computer }) {
      const started = performance.now();
      const result = await computer.exec.run({ runtime, source: TRIVIAL[runtime] });
      const ms = performance.now() - started;
      assertCompleted(result);
      return {
        ms,
        detail: {
          ...(result.durationMs === undefined ? {} : { commandMs: result.durationMs }),
          ...result.metrics,
        },
      };
    },
  };
}

/** A new computer until its first exec result in `runtime`: PUT, then POST /exec; deleted after. */
function coldStart(runtime: RuntimeName): FleetScenario {
  return {
    name: `cold start: ${runtime}`,
    id: `cold-${runtime}`,
    timed: `PUT a new computer, then POST /exec {runtime: ${runtime}} of a trivial program until its result`,
    samples: (reps) => reps,
    async measure({ client }, label) {
      const id = `cold-${runtime}-${label}`;
      const started = performance.now();
      await client.computers.create(id);
      const created = performance.now();
      const computer = client.computer(id);
      try {
        const result = await computer.exec.run({ runtime, source: TRIVIAL[runtime] });
        const ms = performance.now() - started;
        if (runtime === "container") assertSynced(result);
        else assertCompleted(result);
        return { ms, detail: { createMs: created - started, ...result.metrics } };
      } finally {
        await computer.delete();
      }
    },
  };
}

/** The ms between the two `$EPOCHREALTIME` stamps of a line "npm <t0> <t1>". */
function stampedMs(line: string): number {
  const [, t0, t1] = line.trim().split(" ");
  return (Number(t1) - Number(t0)) * 1000;
}

const FILES = ["package.json", "package-lock.json"];
const CACHE_TAR = "npm-cache.tar";

/**
 * The real npm install on the product: on a computer of its own (room for the install; created
 * and woken untimed), the project's package.json and lockfile and npm's warm cache (as one tar;
 * a sandbox sees none of the host's /var) PUT through the API; then one container exec: unpack
 * the cache into the sandbox's /tmp (untimed), `npm ci --offline` (timed inside the command),
 * then "done"; the exit event arrives once the Durable Object holds every file. Time = the
 * install + from "done" to the exit event. Then the DO's listing of node_modules is checked
 * against the container's, and the computer is deleted.
 */
const npmInstall: FleetScenario = {
  name: `npm install (${NPM_PACKAGES} packages), synced`,
  id: "npm-install-fleet",
  timed: "container exec of npm ci --offline, then until the exit event (every installed file in the DO)",
  baseline: "npm-install",
  prepare: WARM_NPM_CACHE,
  limitVsDisk: 1.2,
  heavy: true,
  samples: () => 1,
  warmups: () => 0,
  async measure({ client }, label) {
    const id = `npm-${label}`;
    await client.computers.create(id, { quotaBytes: 8 * 1024 ** 3 });
    const computer = client.computer(id);
    try {
      assertSynced(await containerExec(computer, "true"));
      for (const file of FILES)
        await computer.files.write(`app/${file}`, readFileSync(join(NPM_PROJECT, file)));
      // A sandbox sees none of the host's /var: the cache goes in as one tar file.
      const cache = execFileSync("tar", ["-cf", "-", "-C", NPM_CACHE, "."], { maxBuffer: 2 ** 30 });
      await computer.files.write(CACHE_TAR, cache);
      const script = [
        `mkdir /tmp/npm-cache && tar -xf /workspace/${CACHE_TAR} -C /tmp/npm-cache && rm /workspace/${CACHE_TAR}`,
        "cd /workspace/app",
        "t0=$EPOCHREALTIME",
        "npm ci --offline --no-audit --no-fund --ignore-scripts --cache /tmp/npm-cache > /dev/null",
        "t1=$EPOCHREALTIME",
        'echo "npm $t0 $t1"',
        "echo done",
      ].join(" && ");
      const events = await containerArrivals(computer, `bash -c ${JSON.stringify(script)}`, 1_800_000, {
        HOME: "/tmp",
      });
      const stdout = events.map((e) => (e.type === "stdout" ? e.data : "")).join("");
      const stamp = stdout.split("\n").find((l) => l.startsWith("npm "));
      const done = events.find((e) => e.type === "stdout" && e.data.includes("done"));
      const exit = events.find((e) => e.type === "exit");
      if (!stamp || !done || exit?.type !== "exit")
        throw new Error(`unexpected events: ${JSON.stringify(events).slice(-800)}`);
      assertSynced(exit.result);
      const npmMs = stampedMs(stamp);
      const fenceMs = exit.at - done.at;
      const check = await containerExec(
        computer,
        `cd /workspace/app && bash -c ${JSON.stringify(`${CHECK_PRELUDE}\n${CHECK_NPM_INSTALL}\nls -A node_modules | wc -l`)}`,
      );
      assertSynced(check);
      const inContainer = Number(check.stdout.trim().split("\n").at(-1));
      const inDo = await countEntries(computer, "app/node_modules");
      if (inDo !== inContainer)
        throw new Error(
          `the Durable Object lists ${inDo} entries in node_modules, the container ${inContainer}`,
        );
      return { ms: npmMs + fenceMs, detail: { npmMs, fenceMs, topLevelEntries: inDo } };
    } finally {
      await computer.delete();
    }
  },
};

export const FLEET_EXEC_SCENARIOS: readonly FleetScenario[] = [
  roundTrip("shell"),
  roundTrip("js"),
  coldStart("container"),
  coldStart("shell"),
  coldStart("js"),
  npmInstall,
];
