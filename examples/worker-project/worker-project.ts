/**
 * `npm run example:worker-project`: an agent writes a Cloudflare Worker project (./project)
 * into a computer, installs it, runs its tests and builds it in the computer's Linux container,
 * commits it with git, and publishes two artifacts: the built bundle, and the repository,
 * which `git clone <link>` accepts.
 */
import { fileURLToPath } from "node:url";
import { localTrust } from "@computer/fleet/local-trust";
import type { ComputerClient, Egress } from "@computer/sdk";
import { uploadTree } from "@computer/sdk/node";
import { connect } from "../shared/connect.ts";
import { main, Steps, type StepTime, succeeded } from "../shared/steps.ts";

const PROJECT = fileURLToPath(new URL("project", import.meta.url));

/**
 * The commands' network: the npm registry and nothing else. On `make dev` the container reaches
 * it through computerd host's egress proxy (HTTPS_PROXY, which npm honours); see README.md.
 */
export const EGRESS: Egress = { allow: ["registry.npmjs.org"] };

/**
 * The commands' environment: who the agent commits as, and npm's cache in the container's /tmp
 * (fresh for each command) instead of $HOME, which is the computer: 135 MB less to sync.
 */
const ENV = {
  GIT_AUTHOR_NAME: "worker-project agent",
  GIT_AUTHOR_EMAIL: "agent@computer.invalid",
  GIT_COMMITTER_NAME: "worker-project agent",
  GIT_COMMITTER_EMAIL: "agent@computer.invalid",
  npm_config_cache: "/tmp/npm-cache",
};

/** What a run made. */
export interface WorkerProject {
  /** The bundle's public link: a folder with `index.js`, the Worker as wrangler built it. */
  bundle: string;
  /** The repository's public link: `git clone <repo>`. */
  repo: string;
  times: StepTime[];
}

/** Writes, installs, tests, builds, commits and publishes the project in computer `id`. */
export async function workerProject(
  client: ComputerClient,
  id = "worker-project",
  steps = new Steps("worker-project"),
): Promise<WorkerProject> {
  const computer = client.computer(id);
  await steps.run(`create the computer (egress: ${JSON.stringify(EGRESS)})`, async () => {
    await client.computers.create(id, { egress: EGRESS });
    // Every run builds the project from scratch.
    for (const path of ["hello-worker", "hello-worker.git"]) {
      if (await computer.files.exists(path)) await computer.files.remove(path, { recursive: true });
    }
  });
  const env = { ...ENV, ...(await localTrust(computer, client.url)) };
  await steps.run("write the project", () => uploadTree(computer, PROJECT, "hello-worker"));
  // Each command's output streams to the terminal while it runs; its result ends the step.
  const sh = (step: string, source: string) =>
    steps.run(step, async () => {
      const run = await computer.exec.stream({
        runtime: "container",
        cwd: "/workspace/hello-worker",
        env,
        source,
      });
      return succeeded(await run.result((event) => steps.output(event.data)), step, true);
    });
  await sh("npm install", "npm install --no-audit --no-fund");
  await sh("npm test", "npm test");
  await sh("build: wrangler deploy --dry-run --outdir dist", "npm run build");
  // A bare copy with `update-server-info`'s index files is a repository git clones over plain HTTP.
  await sh(
    "git commit, bare copy for cloning",
    [
      "git init -q -b main",
      "git add -A",
      "git commit -q -m 'hello-worker: a Worker written, tested and built in a computer'",
      "git clone -q --bare --no-local . ../hello-worker.git",
      "git -C ../hello-worker.git update-server-info",
    ].join(" && "),
  );
  const bundle = await steps.run("publish the bundle", () =>
    computer.publish({ path: "hello-worker/dist", name: "hello-worker-bundle" }),
  );
  const repo = await steps.run("publish the repository", () =>
    computer.publish({ path: "hello-worker.git", name: "hello-worker-git" }),
  );
  return { bundle: bundle.url, repo: repo.url, times: steps.times };
}

if (import.meta.main) {
  main("worker-project", async () => {
    const made = await workerProject(connect());
    console.log(`bundle:     ${made.bundle}`);
    console.log(`repository: git clone ${made.repo} hello-worker`);
  });
}
