/**
 * The sandbox over a root filesystem: its argv, and (as root, where the helper is built) what
 * it gives a command: root of a user namespace over subordinate ids (the host sees only those),
 * the computer's root as `/` and its mount at /workspace, no host network with egress none.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tempDir, testTable } from "../../test/exec-harness.ts";
import { computerFolders, prepareComputerFolders } from "../host/computer-folders.ts";
import { prepareComputerRoot, removeComputerRoot } from "../host/computer-root.ts";
import { DEFAULT_PATH, ROOTFS_HOME, sandboxBaseEnv } from "./env.ts";
import { ENTER_HELPER, HeldSandbox } from "./held-sandbox.ts";
import {
  ensureHosts,
  HOSTS,
  ID_COUNT,
  rootfsSandboxArgv,
  rootfsSandboxWrapper,
  USERNS_HELPER,
} from "./rootfs-sandbox.ts";
import { Spawner } from "./spawner.ts";
import { type CommandInput, shellArgv } from "./wrapper.ts";

describe("rootfsSandboxArgv", () => {
  const options = {
    root: "/h/mnt/c/root",
    workspace: "/h/mnt/c/workspace",
    egress: "none" as const,
    idBase: 1_000_000,
  };

  test("the user namespace first, then bwrap with its own namespaces, the root at / and the mount", () => {
    const argv = rootfsSandboxArgv({ ...options, helper: "/x/computerd-userns" }).join(" ");
    expect(argv).toBe(
      "/x/computerd-userns run 1000000 65536 bwrap --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try " +
        "--unshare-net --die-with-parent --new-session --hostname computer --bind /h/mnt/c/root / --dev /dev --proc /proc " +
        "--bind /h/mnt/c/workspace /workspace --chdir /",
    );
    expect(ID_COUNT).toBe(65_536);
  });

  test("egress all shares the host's network and its resolver; no nested user namespace either way", () => {
    const argv = rootfsSandboxArgv({ ...options, egress: "all" }, "/run/resolv.conf");
    expect(argv).not.toContain("--unshare-net");
    expect(argv.join(" ")).toContain("--ro-bind /run/resolv.conf /etc/resolv.conf");
    expect(argv.join(" ")).not.toMatch(/--unshare-(all|user)/);
  });

  test("ensureHosts gives a root without /etc/hosts one naming localhost, and leaves one alone", () => {
    const root = tempDir("rootfs-hosts-");
    mkdirSync(join(root, "etc"));
    ensureHosts(root, process.getuid?.() ?? 0);
    expect(readFileSync(join(root, "etc", "hosts"), "utf8")).toBe(HOSTS);
    expect(HOSTS).toMatch(/^127\.0\.0\.1\tlocalhost/);
    writeFileSync(join(root, "etc", "hosts"), "mine\n");
    ensureHosts(root, process.getuid?.() ?? 0);
    expect(readFileSync(join(root, "etc", "hosts"), "utf8")).toBe("mine\n");
  });
});

/** Programs the tests run, copied with their libraries into a tiny root filesystem. */
const PROGRAMS = [
  "sh",
  "id",
  "ls",
  "cut",
  "touch",
  "chown",
  "cat",
  "wc",
  "mknod",
  "grep",
  "sort",
  "sleep",
  "readlink",
  "stat",
];

/** A tiny root filesystem owned by root, as the real one is on disk. */
function miniRootfs(): string {
  const root = tempDir("computerd-rootfs-");
  for (const dir of ["etc", "tmp", "root", "workspace", "proc", "dev"]) mkdirSync(join(root, dir));
  execFileSync("cp", ["-a", "/etc/passwd", "/etc/group", join(root, "etc")]);
  const copy = `for p in ${PROGRAMS.join(" ")}; do f=$(command -v $p); cp -L --parents $f "$1"; mkdir -p "$1/bin"; [ -e "$1/bin/$p" ] || ln -s $f "$1/bin/$p"; for l in $(ldd $f | grep -o '/[^ ]*'); do cp -L --parents $l "$1"; done; done`;
  execFileSync("bash", ["-c", copy, "copy", root]);
  return root;
}

const capable = process.getuid?.() === 0 && existsSync(USERNS_HELPER);

/**
 * The ways a command gets its sandbox: bubblewrap per command, or entering the held one, spawned
 * by the daemon (computerd-enter runs) or by its spawner, which readies the next command's
 * sandbox while one runs (a warm entry: native/spawner-warm.h).
 */
const PATHS = ["a sandbox of its own", "the held sandbox", "the held sandbox through the spawner"] as const;

describe.runIf(capable).each(PATHS)("a command over a root filesystem (as root), in %s", (path) => {
  const dir = tempDir("computerd-host-");
  const uid = 1_000_000 + 7 * ID_COUNT;
  const folders = computerFolders(dir, "c1");
  let root = "";
  let rootfs = "";
  let held: HeldSandbox | undefined;
  let spawner: Spawner | undefined;
  const entering = path !== "a sandbox of its own";

  /** The held sandbox over the computer's root (its holder started, as the daemon starts it). */
  async function hold(): Promise<void> {
    held?.close();
    const options = { root, workspace: folders.mountPoint, egress: "none" as const, idBase: uid };
    held = new HeldSandbox({
      holderPlan: (tail) => ({
        argv: [...rootfsSandboxArgv(options), ...tail] as [string, ...string[]],
        env: {},
      }),
      fallback: rootfsSandboxWrapper(options),
      home: ROOTFS_HOME,
      // Through the spawner, the holder is forked by it too (as the daemon starts it).
      ...(spawner ? { spawner: async () => spawner } : {}),
    });
    await held.start();
    expect(held.holding).toBe(true);
  }

  beforeAll(async () => {
    rootfs = miniRootfs();
    prepareComputerFolders(dir, folders, uid);
    root = await prepareComputerRoot(folders, rootfs, uid);
    if (path === "the held sandbox through the spawner") spawner = await Spawner.start();
    if (entering) await hold();
  });
  afterAll(async () => {
    held?.close();
    spawner?.close();
    await removeComputerRoot(folders);
  });

  const ownSandbox = () =>
    rootfsSandboxWrapper({ root, workspace: folders.mountPoint, egress: "none", idBase: uid });
  const table = (wrapper = held ? held.wrapper() : ownSandbox(), timeoutMs = 20_000) =>
    testTable({
      wrapper,
      spawner: () => spawner,
      baseEnv: sandboxBaseEnv(process.env, ROOTFS_HOME),
      defaults: { cwd: "/workspace", timeoutMs, maxTimeoutMs: 60_000, outputCap: 1 << 20 },
    });

  test("is pid 2 of its own processes; what it leaves running ends with it, and a timeout ends all", async () => {
    const result = await table().start({
      command: "echo $$; ls /proc | grep -c '^[0-9]'; (sleep 1; echo late > /workspace/late) & exit 0",
    }).done;
    // Its pid 1, itself, ls and grep (the pipeline's subshells are the shell's own forks).
    expect(result.stdout).toMatch(/^2\n[2-5]\n$/);
    const timedOut = await table(undefined, 300).start({
      command: "(sleep 1; echo late > /workspace/late-timeout) & sleep 30",
    }).done;
    expect(timedOut.status).toBe("timeout");
    // An observation window, not a wait: a surviving background job writes 1 s after it started.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(existsSync(join(folders.mountPoint, "late"))).toBe(false);
    expect(existsSync(join(folders.mountPoint, "late-timeout"))).toBe(false);
  });

  test.runIf(entering)(
    "refuses to enter namespaces that are not the ones recorded when the holder started",
    async () => {
      // The host's own namespaces (this process's), named by inodes they do not have.
      const wrong = (input: CommandInput) => ({
        argv: [
          ENTER_HELPER,
          String(process.pid),
          "net:1,user:1,mnt:1,uts:1,cgroup:1",
          "--",
          ...shellArgv(input.command, input.cwd),
        ] as [string, ...string[]],
        env: input.env,
      });
      const result = await table(wrong).start({ command: "echo ran" }).done;
      expect(result).toMatchObject({ status: "failed", exitCode: 125, stdout: "" });
      expect(result.stderr).toContain("the held sandbox is gone");
    },
  );

  test.runIf(entering)(
    "gives a command what a sandbox of its own gives: ids, capabilities, mounts, /dev, hostname",
    async () => {
      const probe = [
        "id",
        "grep -E '^(Cap|NoNewPrivs|Seccomp)' /proc/self/status",
        "cut -d' ' -f2- /proc/self/mounts | sort",
        // Modes, owners, device numbers and link targets (not times: each /dev is made when its command starts).
        "stat -c '%A %u %g %t,%T %N' /dev/* /dev/pts/*",
        "cat /proc/sys/kernel/hostname",
        "umask",
        "readlink /proc/self/ns/user >/dev/null && echo own-namespaces",
      ].join("; ");
      const [mine, entered] = await Promise.all([
        table(ownSandbox()).start({ command: probe }).done,
        table().start({ command: probe }).done,
      ]);
      expect([mine.stderr, entered.stderr]).toEqual(["", ""]);
      expect(mine.stdout).toContain("/dev/pts devpts");
      expect(entered.stdout).toBe(mine.stdout);
      // Each command's namespaces are its own: two commands in the held sandbox differ. Each
      // waits until the other has read its own, so both are alive at once: the kernel reuses a
      // freed namespace's inode number, so two that ran one after the other may show the same.
      const ns = (me: string, other: string) =>
        "readlink /proc/self/ns/pid /proc/self/ns/mnt /proc/self/ns/ipc /proc/self/ns/uts; " +
        `touch /workspace/ns-${me}; i=0; ` +
        `while [ ! -e /workspace/ns-${other} ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i + 1)); done`;
      const [a, b] = await Promise.all([
        table().start({ command: ns("a", "b") }).done,
        table().start({ command: ns("b", "a") }).done,
      ]);
      expect([a.stderr, b.stderr]).toEqual(["", ""]);
      expect(a.stdout.trim().split("\n")).toHaveLength(4);
      for (const [x, y] of a.stdout
        .trim()
        .split("\n")
        .map((line, i) => [line, b.stdout.trim().split("\n")[i]]))
        expect(x).not.toBe(y);
    },
  );

  test("every process of a command dies when the process that started it is killed", async () => {
    const wrapper = held ? held.wrapper() : ownSandbox();
    const plan = wrapper({
      command: "echo > /workspace/started; sleep 2; echo survived > /workspace/orphan",
      cwd: "/workspace",
      env: sandboxBaseEnv(process.env, ROOTFS_HOME),
    });
    // A parent that only waits for it, as the spawner does; killed without a chance to clean up.
    const parent = spawn("/bin/sh", ["-c", '"$@" & wait', "parent", ...plan.argv], {
      env: plan.env,
      stdio: "ignore",
    });
    // Killed once the command runs (it says so), not after a guessed delay.
    const deadline = Date.now() + 20_000;
    while (!existsSync(join(folders.mountPoint, "started"))) {
      if (Date.now() > deadline) throw new Error("the command never started");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    parent.kill("SIGKILL");
    // An observation window, not a wait: a surviving command writes its marker 2 s after it started.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(existsSync(join(folders.mountPoint, "orphan"))).toBe(false);
  });

  test("runs as root inside whose files the host sees as subordinate ids", async () => {
    const result = await table().start({
      command:
        "id -u; id -g; echo $HOME $PATH; ls -ln /etc/passwd | cut -d' ' -f3,4; touch made && chown 1234:5678 made",
    }).done;
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(`0\n0\n/root ${DEFAULT_PATH}\n0 0\n`);
    const made = statSync(join(folders.mountPoint, "made"));
    expect([made.uid, made.gid]).toEqual([uid + 1234, uid + 5678]);
  });

  test("changes to / land in the throwaway layer, not in the root filesystem, and go with it", async () => {
    const result = await table().start({ command: "echo changed > /etc/added && cat /etc/added" }).done;
    expect(result.stdout).toBe("changed\n");
    expect(existsSync(join(rootfs, "etc", "added"))).toBe(false);
    expect(readFileSync(join(folders.door, "layer", "upper", "etc", "added"), "utf8")).toBe("changed\n");
    await removeComputerRoot(folders);
    root = await prepareComputerRoot(folders, rootfs, uid);
    // A new root is a new start of the computer's daemon: so is its held sandbox.
    if (held) await hold();
    expect((await table().start({ command: "cat /etc/added 2>/dev/null || echo gone" }).done).stdout).toBe(
      "gone\n",
    );
  });

  test("starts in its cwd as `cd` would leave it (PWD, OLDPWD, $0); a missing one fails it unrun", async () => {
    mkdirSync(join(folders.mountPoint, "sub dir"), { recursive: true });
    const result = await table().start({
      command: 'pwd; echo "$PWD|$OLDPWD|$0|$#"',
      cwd: "/workspace/sub dir",
    }).done;
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("/workspace/sub dir\n/workspace/sub dir|/|/bin/sh|0\n");
    const missing = await table().start({ command: "echo ran", cwd: "/workspace/missing" }).done;
    expect(missing.status).toBe("failed");
    expect(missing.exitCode).toBe(2);
    expect(missing.stdout).toBe("");
    expect(missing.stderr).toMatch(/can't cd to \/workspace\/missing/);
  });

  test.runIf(path === "the held sandbox through the spawner")(
    "a warm entry runs the next commands: stdin, output, exit code and cwd as a cold one's",
    async () => {
      const before = spawner?.counters.warm ?? 0;
      for (let i = 0; i < 10; i++) {
        const result = await table().start({
          command: `cat; echo "$PWD ${i}" >&2; exit ${i}`,
          cwd: "/workspace",
          stdin: `in ${i}\n`,
        }).done;
        expect(result).toMatchObject({ stdout: `in ${i}\n`, stderr: `/workspace ${i}\n`, exitCode: i });
      }
      // Each command finds the next one's sandbox being readied; one at least was ready in time.
      expect((spawner?.counters.warm ?? 0) - before).toBeGreaterThan(0);
    },
  );

  test.runIf(path === "the held sandbox through the spawner")(
    "the first command after the holder started finds a warm entry readied for it",
    async () => {
      await hold();
      // The spawner readies it as soon as the holder runs; a moment is plenty for that.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const before = spawner?.counters.warm ?? 0;
      const result = await table().start({ command: "echo first", cwd: "/workspace" }).done;
      expect(result).toMatchObject({ stdout: "first\n", exitCode: 0 });
      expect((spawner?.counters.warm ?? 0) - before).toBe(1);
    },
  );

  test("root inside makes fifos but no device nodes (only the host's root may)", async () => {
    const result = await table().start({
      command: "mknod /tmp/fifo p && echo fifo; mknod /tmp/null c 1 3 2>/dev/null || echo no-device",
    }).done;
    expect(result.stdout).toBe("fifo\nno-device\n");
  });

  test("another computer's folder and the host's files are out of reach", async () => {
    const other = computerFolders(dir, "c2");
    prepareComputerFolders(dir, other, uid + ID_COUNT);
    writeFileSync(join(other.mountPoint, "secret"), "c2's");
    const result = await table().start({
      command: `cat ${join(other.mountPoint, "secret")} 2>/dev/null || echo refused; ls ${dir} 2>/dev/null | wc -l`,
    }).done;
    expect(result.stdout).toBe("refused\n0\n");
  });
});
