/**
 * The exec contract (exec-contract.ts) against every runtime inside workerd: shell and js as
 * they run in production (Dynamic Workers through the Worker Loader), container over the real
 * dial-back link with a just-bash daemon (shell-daemon.ts) standing in for computerd — it has
 * no files, so the cwd case only checks `pwd` there; test/e2e runs the cases on real computerd.
 */
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CONTRACT_CASES, ContractClient, type ContractRuntime } from "./exec-contract.ts";
import { api, createComputer } from "./helpers.ts";
import { LinkTestLauncher } from "./link-test-launcher.ts";
import { dialShellDaemon, ShellDaemonState } from "./shell-daemon.ts";

/** A computer whose container runtime is the just-bash daemon, with its link already up. */
async function containerComputer(): Promise<string> {
  const id = await createComputer();
  const launcher = new LinkTestLauncher();
  await runInDurableObject(env.COMPUTER.getByName(id), (instance) => {
    instance.execHostForTests().useLauncher(launcher);
  });
  const client = new ContractClient(api, id, "container");
  const first = client.run({ source: "true" });
  const { base } = await launcher.nextConnect();
  expect(await dialShellDaemon(base, launcher.secret, new ShellDaemonState())).toBe(101);
  expect((await first).status).toBe("completed");
  return id;
}

const RUNTIMES: ContractRuntime[] = ["container", "shell", "js"];

for (const runtime of RUNTIMES) {
  describe(`exec contract: ${runtime}`, () => {
    for (const contractCase of CONTRACT_CASES) {
      it(contractCase.name, async () => {
        const id = runtime === "container" ? await containerComputer() : await createComputer();
        await contractCase.run(new ContractClient(api, id, runtime), runtime !== "container");
      });
    }
  });
}
