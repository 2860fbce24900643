/**
 * The bubblewrap sandbox: its arguments, and (where bwrap can run) what a sandboxed command
 * can and cannot do: write /workspace, not /etc; not see the host's /root; no capabilities;
 * no host loopback when egress is none.
 */

import { execFileSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { canRun } from "@computer/fleet/capabilities";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tempDir, testTable } from "../../test/exec-harness.ts";
import {
  type BubblewrapOptions,
  bubblewrapArgs,
  bubblewrapWrapper,
  inSystemFolder,
  reachableByOthers,
  SYSTEM_FOLDERS,
  systemRootEntries,
} from "./bwrap.ts";
import { DEFAULT_PATH, sandboxBaseEnv } from "./env.ts";

function bwrapWorks(): boolean {
  try {
    execFileSync("bwrap", ["--unshare-all", "--ro-bind", "/", "/", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("bubblewrapArgs", () => {
  const entries = [
    { name: "usr" },
    { name: "bin", symlink: "usr/bin" },
    { name: "etc" },
    { name: "work" },
    { name: "root" },
  ];
  const options: BubblewrapOptions = {
    workspace: "/srv/c1",
    egress: "none",
    hide: ["/usr/lib/computerd", "/var/x"],
  };

  test("unshares everything, drops capabilities, dies with its parent, runs as 1000", () => {
    const args = bubblewrapArgs(options, entries).join(" ");
    expect(args).toContain(
      "--unshare-all --die-with-parent --new-session --cap-drop ALL --uid 1000 --gid 1000",
    );
    expect(args).not.toContain("--share-net");
    expect(bubblewrapArgs({ ...options, egress: "all" }, entries).join(" ")).toContain(
      "--unshare-all --share-net",
    );
  });

  test("binds only allow-listed system folders read-only; everything else is empty or absent", () => {
    const args = bubblewrapArgs(options, entries, "/run/resolved/resolv.conf").join(" ");
    expect(args).toContain("--ro-bind /usr /usr --symlink usr/bin /bin --ro-bind /etc /etc --dev /dev");
    expect(args).toContain(
      "--dev /dev --proc /proc --tmpfs /tmp --dir /home --dir /root --dir /run --dir /var",
    );
    expect(args).toContain("--ro-bind /run/resolved/resolv.conf /run/resolved/resolv.conf");
    expect(args).toContain("--tmpfs /usr/lib/computerd");
    expect(args).not.toContain("/var/x");
    expect(args).toContain("--bind /srv/c1 /workspace --chdir /");
    expect(args).not.toMatch(/--(ro-)?bind \/(work|root|home) /);
    // Every bind source is a system folder, the resolver's file or the workspace.
    const list = bubblewrapArgs(options, entries, "/run/resolved/resolv.conf");
    const sources = list.flatMap((arg, i) => (arg === "--ro-bind" || arg === "--bind" ? [list[i + 1]] : []));
    expect(sources).toEqual(["/usr", "/etc", "/run/resolved/resolv.conf", "/srv/c1"]);
  });

  test("the allow-list is system folders only, and inSystemFolder follows it", () => {
    expect([...SYSTEM_FOLDERS]).toEqual(["bin", "etc", "lib", "lib32", "lib64", "libx32", "sbin", "usr"]);
    expect(inSystemFolder("/usr/local/x")).toBe(true);
    expect(inSystemFolder("/etc")).toBe(true);
    expect(inSystemFolder("/work/repo/.computer/host")).toBe(false);
    expect(inSystemFolder("/usrx")).toBe(false);
  });

  test("systemRootEntries lists the allow-listed folders this host has, symlinks as symlinks", () => {
    const root = tempDir("computerd-root-");
    mkdirSync(join(root, "usr"));
    mkdirSync(join(root, "etc"));
    mkdirSync(join(root, "home"));
    symlinkSync("usr/bin", join(root, "bin"));
    writeFileSync(join(root, "lib"), "not a folder");
    expect(systemRootEntries(root)).toEqual([
      { name: "bin", symlink: "usr/bin" },
      { name: "etc" },
      { name: "usr" },
    ]);
  });
});

describe.skipIf(
  !canRun("a sandboxed command", bwrapWorks() ? [] : ["a working bubblewrap (bwrap --unshare-all)"]),
)("a sandboxed command", () => {
  const workspace = tempDir("computerd-bwrap-");
  const hidden = tempDir("computerd-state-");
  let server: Server;
  let port = 0;

  beforeAll(async () => {
    mkdirSync(join(workspace, "sub"));
    writeFileSync(join(hidden, "secret"), "state");
    if (process.getuid?.() === 0) {
      chownSync(workspace, 65534, 65534);
      chownSync(join(workspace, "sub"), 65534, 65534);
    }
    server = createServer((socket) => socket.end("hello from the host\n"));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    port = typeof address === "object" && address ? address.port : 0;
  });
  afterAll(() => server.close());

  const table = (egress: "none" | "all" = "none", timeoutMs = 20_000) =>
    testTable({
      wrapper: bubblewrapWrapper({ workspace, egress, hide: [hidden] }),
      baseEnv: sandboxBaseEnv(process.env),
      defaults: { cwd: "/workspace", timeoutMs, maxTimeoutMs: 60_000, outputCap: 1 << 20 },
    });

  test("runs as a user without capabilities and can write /workspace", async () => {
    const result = await table().start({
      command: "id -u; grep CapEff /proc/self/status; echo hi > made; pwd; echo $HOME",
      cwd: "sub",
    }).done;
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("1000\nCapEff:\t0000000000000000\n/workspace/sub\n/workspace\n");
    expect(readFileSync(join(workspace, "sub", "made"), "utf8")).toBe("hi\n");
  });

  test("sees the allow-listed system folders, empty placeholders and its workspace, nothing else", async () => {
    const result = await table().start({
      command: `ls -A /; for f in /home /root /run /opt /mnt /srv; do echo $f:; ls -A $f; done; ls -A /var; test -e ${process.cwd()} || echo no-checkout`,
    }).done;
    const system = systemRootEntries().map((entry) => entry.name);
    const shown = [
      ...system,
      "dev",
      "home",
      "mnt",
      "opt",
      "proc",
      "root",
      "run",
      "srv",
      "tmp",
      "var",
      "workspace",
    ];
    const folders = ["/home", "/root", "/run", "/opt", "/mnt", "/srv"].map((f) => `${f}:\n`).join("");
    const resolv = existsSync("/etc/resolv.conf") && !inSystemFolder(realpathSync("/etc/resolv.conf"));
    expect(result.stderr).toBe("");
    if (!resolv) expect(result.stdout).toBe(`${shown.sort().join("\n")}\n${folders}tmp\nno-checkout\n`);
    else expect(result.stdout.split("\n").slice(0, shown.length)).toEqual(shown.sort());
  });

  test("its environment is the fixed PATH and HOME plus the locale: no host path", async () => {
    const result = await table().start({ command: "env | sort" }).done;
    const lines = result.stdout.trim().split("\n");
    expect(lines).toContain(`PATH=${DEFAULT_PATH}`);
    expect(lines).toContain("HOME=/workspace");
    expect(lines.map((line) => line.split("=")[0]).sort()).toEqual(
      [...Object.keys(sandboxBaseEnv(process.env)), "OLDPWD", "PWD"].sort(),
    );
  });

  test("cannot write the host's system, read root's files, or see /root and hidden paths", async () => {
    const result = await table().start({
      command: `touch /etc/x || echo no-etc; cat /etc/shadow >/dev/null 2>&1 || echo no-shadow; ls -A /root | wc -l; ls -A ${hidden} 2>/dev/null | wc -l; touch /tmp/ok && echo tmp-ok`,
    }).done;
    expect(result.stdout).toBe(`no-etc\n${existsSync("/etc/shadow") ? "no-shadow\n" : ""}0\n0\ntmp-ok\n`);
    expect(existsSync("/etc/x")).toBe(false);
  });

  test("with egress none, cannot reach a port on the host's 127.0.0.1", async () => {
    const probe = `bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && head -n1 <&3' 2>/dev/null || echo unreachable`;
    expect((await table("none").start({ command: probe }).done).stdout).toBe("unreachable\n");
    expect((await table("all").start({ command: probe }).done).stdout).toBe("hello from the host\n");
  });

  test("a timeout ends the whole sandbox", async () => {
    const result = await table("none", 300).start({ command: "sleep 30 & sleep 30" }).done;
    expect(result.status).toBe("timeout");
    expect(result.durationMs).toBeLessThan(5000);
  });
});

describe("reachableByOthers", () => {
  test("is false below a directory others cannot search, true where every step allows it", () => {
    const root = tempDir();
    const closed = join(root, "closed");
    const open = join(root, "open");
    mkdirSync(join(closed, "state"), { recursive: true, mode: 0o700 });
    mkdirSync(join(open, "state"), { recursive: true });
    chmodSync(root, 0o711);
    chmodSync(closed, 0o700);
    chmodSync(open, 0o711);
    chmodSync(join(open, "state"), 0o711);
    expect(reachableByOthers(join(closed, "state"))).toBe(false);
    expect(reachableByOthers(join(open, "state"))).toBe(reachableByOthers(root));
    expect(reachableByOthers(join(root, "missing"))).toBe(false);
  });
});
