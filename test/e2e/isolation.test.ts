/**
 * Isolation of the container runtime on `make dev`'s launcher (`computerd host`, bubblewrap):
 * two computers run at once, beta holding a secret and a running command; from alpha, every
 * way to beta's files fails (its mount path, /proc/PID/root and /proc/PID/cwd of every visible
 * process, the host checkout, guessed state paths), the admin and host tokens cannot be read,
 * and `env` names no host path. On the host itself, alpha's sandbox user cannot pass beta's
 * folders. docs/THREAT_MODEL.md cites these tests. Needs root, /dev/fuse and bubblewrap: a
 * machine without them fails this suite (it never skips).
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type Fleet, startFleet } from "@computer/fleet";
import { containerMissing } from "@computer/fleet/capabilities";
import { ContractClient, expectCompleted } from "@computer/fleet/container-contract";
import { REPO_ROOT } from "@computer/fleet/wrangler-dev";
import { computerFolders } from "computerd/computer-folders";
import { DEFAULT_PATH, ROOTFS_HOME, SANDBOX_HOME } from "computerd/exec-env";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SECRET = `beta-secret-${Date.now()}`;
const alpha = new ContractClient("alpha");
const beta = new ContractClient("beta");
let fleet: Fleet;
let hostDir = "";
/** beta's long command, running while alpha probes. */
let betaRunning: Promise<unknown> | undefined;

/** Runs `script` in alpha; its stdout, which must never hold beta's secret. */
async function inAlpha(script: string): Promise<string> {
  const result = await alpha.exec(script);
  expect(result.status, JSON.stringify(result)).toBe("completed");
  expect(`${result.stdout}${result.stderr}`).not.toContain(SECRET);
  return result.stdout;
}

/** A shell test of `path` that prints `refused` unless it can be read. */
const refusedUnlessRead = (path: string) => `cat '${path}' 2>/dev/null || echo refused`;

describe("isolation between computers (computerd host, bubblewrap)", () => {
  beforeAll(async () => {
    const missing = containerMissing();
    if (missing.length > 0) {
      throw new Error(`the isolation suite needs ${missing.join(", ")}; it does not skip`);
    }
    // The host's folder inside the checkout, as `make dev` has it (.computer/host): on the tree
    // before the allow-list, beta's secret was readable there by its path from alpha.
    fleet = await startFleet({ computerdHost: true, parentDir: join(REPO_ROOT, ".computer") });
    hostDir = fleet.hostDir ?? "";
    for (const client of [alpha, beta]) {
      client.fleet = fleet;
      const res = await fetch(client.url(""), { method: "PUT", headers: client.auth() });
      expect(res.status).toBe(201);
    }
    const put = await fetch(beta.url("/files/secret.txt"), {
      method: "PUT",
      headers: beta.auth(),
      body: `${SECRET}\n`,
    });
    expect(put.status).toBe(201);
    const seen = await beta.exec("cat secret.txt");
    expectCompleted(seen);
    expect(seen.stdout).toBe(`${SECRET}\n`);
    betaRunning = beta.exec("sleep 40", 120_000);
    expectCompleted(await alpha.exec("echo mine > mine.txt"));
  }, 300_000);

  afterAll(async () => {
    await betaRunning?.catch(() => undefined);
    await fleet?.stop();
  }, 120_000);

  it("beta's files exist on the host, so the refusals below are real", () => {
    const mount = computerFolders(hostDir, "beta").mountPoint;
    expect(execFileSync("cat", [join(mount, "secret.txt")], { encoding: "utf8" })).toBe(`${SECRET}\n`);
  });

  it("alpha cannot read beta's files by their mount path (old and current layout)", async () => {
    const paths = [
      join(computerFolders(hostDir, "beta").mountPoint, "secret.txt"),
      join(hostDir, "mnt", "beta", "secret.txt"),
      join(REPO_ROOT, ".computer", "host", "mnt", "beta", "secret.txt"),
      join(REPO_ROOT, ".computer", "host", "mnt", "beta", "workspace", "secret.txt"),
    ];
    const out = await inAlpha(paths.map(refusedUnlessRead).join("; "));
    expect(out).toBe("refused\n".repeat(paths.length));
    expect(await inAlpha("cat mine.txt")).toBe("mine\n");
  });

  it("alpha sees only its own processes, and /proc/PID/root and /proc/PID/cwd lead nowhere else", async () => {
    const betaMount = computerFolders(hostDir, "beta").mountPoint;
    const out = await inAlpha(
      [
        "for p in /proc/[0-9]*; do",
        `  cat $p/root${betaMount}/secret.txt $p/root${hostDir}/mnt/beta/secret.txt 2>/dev/null`,
        "  cat $p/cwd/../mnt/beta/workspace/secret.txt $p/root/../../secret.txt 2>/dev/null",
        "  tr '\\0' ' ' < $p/cmdline 2>/dev/null; echo",
        "done",
        "ls -d /proc/[0-9]* | wc -l",
      ].join("\n"),
    );
    const lines = out.trim().split("\n");
    const count = Number(lines.pop());
    // The sandbox's own shell, its children and this loop: no daemon, no wrangler, no sleep of beta.
    expect(count).toBeLessThan(8);
    for (const line of lines) expect(line).not.toMatch(/computerd\.js|wrangler|workerd|sleep 40/);
  });

  it("alpha cannot reach the host checkout or guess its way to a state folder", async () => {
    const guesses = [
      join(REPO_ROOT, "package.json"),
      join(hostDir, "state", "beta", "secret"),
      join(hostDir, "state", "alpha", "secret"),
      join(REPO_ROOT, ".computer", "host", "state", "beta", "secret"),
      "/var/lib/computerd/secret",
    ];
    const out = await inAlpha(
      `${guesses.map(refusedUnlessRead).join("; ")}; ls ${REPO_ROOT} ${hostDir} /work 2>/dev/null | wc -l`,
    );
    expect(out).toBe(`${"refused\n".repeat(guesses.length)}0\n`);
  });

  it("alpha cannot reach the fleet on the host's loopback (egress none)", async () => {
    const out = await inAlpha(
      `curl -s -m 5 -o /dev/null ${fleet.url}/healthz && echo reached || echo unreachable`,
    );
    expect(out).toBe("unreachable\n");
  });

  it("the admin and host tokens cannot be read from alpha", async () => {
    const files = [
      join(REPO_ROOT, ".computer", "admin-token"),
      join(REPO_ROOT, ".computer", "host-token"),
      join(REPO_ROOT, "worker", ".dev.vars"),
      join(fleet.dir, "dev.vars"),
    ];
    const tokens = [fleet.adminToken, fleet.hostToken ?? ""];
    const grep = tokens.map(
      (token) =>
        `grep -rhoF '${token}' /proc/*/environ /proc/*/cmdline /tmp /workspace /etc /run 2>/dev/null`,
    );
    const out = await inAlpha(
      `${files.map(refusedUnlessRead).join("; ")}; env; ${grep.join("; ")}; echo end`,
    );
    expect(out.startsWith("refused\n".repeat(files.length))).toBe(true);
    expect(out.endsWith("\nend\n")).toBe(true);
    for (const token of tokens) expect(out).not.toContain(token);
  });

  it("alpha's env names no host path: the fixed PATH, HOME of the sandbox", async () => {
    const out = await inAlpha("env");
    const vars = new Map(
      out
        .trim()
        .split("\n")
        .map((line) => [line.split("=")[0], line.slice(line.indexOf("=") + 1)]),
    );
    expect(vars.get("PATH")).toBe(DEFAULT_PATH);
    // Root's home of the image's root filesystem where the fleet runs over it (as root), else /workspace.
    const home = process.getuid?.() === 0 ? ROOTFS_HOME : SANDBOX_HOME;
    expect(vars.get("HOME")).toBe(home);
    const hostPath = (process.env.PATH ?? "")
      .split(":")
      .filter((dir) => dir && !DEFAULT_PATH.split(":").includes(dir));
    for (const path of [
      REPO_ROOT,
      hostDir,
      fleet.dir,
      ...hostPath,
      ...(homedir() === home ? [] : [homedir()]),
    ]) {
      expect(out).not.toContain(path);
    }
  });

  it("on the host, beta's running command holds only beta's ids, none of root's", () => {
    const pids = execFileSync("pgrep", ["-f", "^sleep 40$"], { encoding: "utf8" }).trim().split("\n");
    expect(pids.length).toBeGreaterThan(0);
    const base = Number(
      execFileSync("stat", ["-c", "%u", join(hostDir, "mnt", "beta")], { encoding: "utf8" }),
    );
    for (const pid of pids) {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const uids = (/^Uid:\s+(.*)$/m.exec(status)?.[1] ?? "").split(/\s+/).map(Number);
      expect(
        uids.every((uid) => uid >= base && uid < base + 65536),
        status,
      ).toBe(true);
      expect(uids).not.toContain(0);
    }
  });

  it("on the host, alpha's sandbox user cannot pass beta's folder or the state folder", () => {
    const uid = Number(
      execFileSync("stat", ["-c", "%u", join(hostDir, "mnt", "alpha")], { encoding: "utf8" }),
    );
    expect(uid).toBeGreaterThan(65535);
    expect(
      Number(execFileSync("stat", ["-c", "%u", join(hostDir, "mnt", "beta")], { encoding: "utf8" })),
    ).not.toBe(uid);
    const as = (path: string) =>
      execFileSync(
        "setpriv",
        [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", "sh", "-c", refusedUnlessRead(path)],
        { encoding: "utf8" },
      );
    expect(as(join(computerFolders(hostDir, "beta").mountPoint, "secret.txt"))).toBe("refused\n");
    expect(as(join(hostDir, "state", "beta", "secret"))).toBe("refused\n");
    expect(as(join(computerFolders(hostDir, "alpha").mountPoint, "mine.txt"))).toBe("mine\n");
  });
});
