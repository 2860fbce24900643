/**
 * The worker-project example on a real local fleet with containers: the published bundle,
 * loaded into miniflare, answers as the project's own tests say; `git clone` of the published
 * repository gives the computer's commit, tree and files.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Fleet, startFleet } from "@computer/fleet";
import { ComputerClient } from "@computer/sdk";
import { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runContainerExamples } from "../shared/container-capable.ts";
import { Steps } from "../shared/steps.ts";
import { type WorkerProject, workerProject } from "./worker-project.ts";

const ID = "worker-project-e2e";

describe.runIf(runContainerExamples)("worker-project", () => {
  let fleet: Fleet;
  let client: ComputerClient;
  let made: WorkerProject;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "worker-project-e2e-"));
    fleet = await startFleet({ computerdHost: true });
    client = new ComputerClient({ url: fleet.url, token: fleet.adminToken });
    made = await workerProject(
      client,
      ID,
      new Steps(
        "worker-project",
        () => {},
        () => {},
      ),
    );
  }, 900_000);

  afterAll(async () => {
    await fleet?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("publishes a bundle that miniflare runs", async () => {
    const res = await fetch(`${made.bundle}index.js`);
    expect(res.status).toBe(200);
    const mf = new Miniflare({
      workers: [
        {
          config: {
            name: "hello-worker",
            compatibilityDate: "2026-11-01",
            manifest: {
              mainModule: "index.js",
              modulesRoot: "/",
              modules: { "index.js": { type: "esm", contents: await res.text() } },
            },
          },
        },
      ],
    });
    try {
      const hello = await mf.dispatchFetch("http://hello.example/");
      expect(await hello.text()).toBe("Hello from a Worker built in a computer!\n");
      const sum = await mf.dispatchFetch("http://hello.example/sum?a=2&b=40");
      expect(await sum.json()).toEqual({ sum: 42 });
      expect((await mf.dispatchFetch("http://hello.example/nope")).status).toBe(404);
    } finally {
      await mf.dispose();
    }
  });

  it("publishes a repository that git clone gives back with the same commit, tree and files", async () => {
    const clone = join(dir, "hello-worker");
    execFileSync("git", ["clone", "-q", made.repo, clone], { stdio: "pipe" });
    const git = (...args: string[]) =>
      execFileSync("git", ["-C", clone, ...args], { encoding: "utf8" }).trim();

    const computer = client.computer(ID);
    const inComputer = await computer.exec.run({
      runtime: "container",
      cwd: "/workspace/hello-worker",
      source: "git log --format='%H %T %an %s' && git ls-files",
    });
    expect(inComputer.exitCode, inComputer.stderr).toBe(0);
    expect(`${git("log", "--format=%H %T %an %s")}\n${git("ls-files")}`).toBe(inComputer.stdout.trim());
    expect(git("status", "--porcelain")).toBe("");

    const files = git("ls-files").split("\n");
    expect(files).toEqual(
      expect.arrayContaining([
        "package.json",
        "package-lock.json",
        "src/index.ts",
        "src/index.test.ts",
        "wrangler.jsonc",
      ]),
    );
    expect(files.some((f) => f.startsWith("node_modules/") || f.startsWith("dist/"))).toBe(false);
    for (const file of files) {
      const ours = new Uint8Array(readFileSync(join(clone, file)));
      expect(await computer.files.read(`hello-worker/${file}`), file).toEqual(ours);
    }
  });
});
