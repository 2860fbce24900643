// Ad-hoc A/B (not committed): per-command bwrap + direct spawn vs held sandbox + spawner, interleaved.
import { mkdirSync } from "node:fs";
import { ROOTFS_HOME, sandboxBaseEnv } from "../src/exec/env.ts";
import { HeldSandbox } from "../src/exec/held-sandbox.ts";
import { rootfsSandboxArgv, rootfsSandboxWrapper } from "../src/exec/rootfs-sandbox.ts";
import { SandboxNetwork } from "../src/exec/sandbox-network.ts";
import { Spawner } from "../src/exec/spawner.ts";
import type { CommandWrapper } from "../src/exec/wrapper.ts";
import { computerFolders, prepareComputerFolders } from "../src/host/computer-folders.ts";
import { prepareComputerRoot, removeComputerRoot } from "../src/host/computer-root.ts";
import { testTable } from "./exec-harness.ts";

const rootfs = process.argv[2]!;
const ballastMb = Number(process.argv[3] ?? 0);
const n = Number(process.argv[4] ?? 30);
const dir = "/tmp/exec-ab/host";
mkdirSync(dir, { recursive: true });
const uid = 1_000_000 + 9 * 65536;
const folders = computerFolders(dir, "ab");
prepareComputerFolders(dir, folders, uid);
const root = await prepareComputerRoot(folders, rootfs, uid);
const network = await SandboxNetwork.start();
const options = { root, workspace: folders.mountPoint, egress: "all" as const, idBase: uid };
const perCommand = network.wrap(rootfsSandboxWrapper(options));
const held = new HeldSandbox({
  holderPlan: (tail) =>
    network.wrap(() => ({
      argv: [...rootfsSandboxArgv(options), ...tail] as [string, ...string[]],
      env: {},
    }))({ command: "", cwd: "/", env: {} }),
  fallback: perCommand,
  home: ROOTFS_HOME,
});
await held.start();
const spawner = await Spawner.start();
const ballast: Buffer[] = [];
for (let i = 0; i < ballastMb / 16; i++) ballast.push(Buffer.alloc(16 << 20, 1));
const table = (wrapper: CommandWrapper, sp?: Spawner) =>
  testTable({
    wrapper,
    baseEnv: sandboxBaseEnv(process.env, ROOTFS_HOME),
    spawner: () => sp,
    defaults: { cwd: "/workspace", timeoutMs: 20000, maxTimeoutMs: 60000, outputCap: 1 << 20 },
  });
const variants: Record<string, ReturnType<typeof table>> = {
  "bwrap, direct": table(perCommand),
  "bwrap, spawner": table(perCommand, spawner),
  "held, direct": table(held.wrapper()),
  "held, spawner": table(held.wrapper(), spawner),
};
const samples: Record<string, number[]> = {};
const cpu: Record<string, number[]> = {};
for (let i = 0; i < n; i++)
  for (const [name, t] of Object.entries(variants)) {
    const before = process.cpuUsage();
    const started = performance.now();
    const r = await t.start({ command: "true" }).done;
    if (r.status !== "completed") throw new Error(JSON.stringify(r));
    (samples[name] ??= []).push(performance.now() - started);
    const c = process.cpuUsage(before);
    (cpu[name] ??= []).push((c.user + c.system) / 1000);
  }
const med = (a: number[]) => [...a].sort((x, y) => x - y)[a.length >> 1]!.toFixed(1);
console.log(`ballast ${ballastMb} MiB, rss ${process.memoryUsage().rss >> 20} MiB, n=${n}`);
for (const name of Object.keys(variants))
  console.log(name.padEnd(16), "median ms", med(samples[name]!), " daemon cpu ms", med(cpu[name]!));
held.close();
spawner.close();
network.close();
await removeComputerRoot(folders);
process.exit(0);
