/**
 * The spare daemon (spare-daemon.ts, commands/spare.ts) against real `computerd serve --spare`
 * processes (no sandbox, no mount, so it runs anywhere): it holds nothing of a computer until it
 * is taken, becomes exactly the daemon it is told to be, is taken once, and ends when its stdin
 * closes untaken.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { lineReader, parseAssignment } from "../commands/spare.ts";
import { computerFolders, sandboxUidOf } from "./computer-folders.ts";
import { type DaemonLaunch, DaemonProcess, daemonBaseEnv } from "./daemon-process.ts";
import { parseHostConfig } from "./host-config.ts";
import { SpareDaemon } from "./spare-daemon.ts";

let dir: string;
const command = (() => {
  const parsed = parseHostConfig(["--port", "0"], { COMPUTERD_HOST_TOKEN: "host-token-0123456789" });
  if (parsed === "help") throw new Error("help");
  return parsed.computerd;
})();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "computerd-spare-"));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Computer `id`'s daemon without a sandbox or a mount, from `spare`. */
function launch(id: string, spare: SpareDaemon): DaemonLaunch {
  return {
    computerId: id,
    command,
    dir,
    folders: computerFolders(dir, id),
    sandboxUid: sandboxUidOf(dir, id),
    rootfs: "",
    sandbox: "none",
    mount: "none",
    egress: "none",
    env: {},
    spare,
  };
}

function newSpare(): SpareDaemon {
  return SpareDaemon.start({ command, env: daemonBaseEnv(dir), network: false });
}

describe("the assignment", () => {
  test("is one line of {args, env, rootLater?}; the reader says when its input closed", async () => {
    expect(parseAssignment('{"args":["--port","0"],"env":{"COMPUTERD_COMPUTER_ID":"c1"}}')).toEqual({
      args: ["--port", "0"],
      env: { COMPUTERD_COMPUTER_ID: "c1" },
    });
    expect(parseAssignment('{"args":[],"env":{},"rootLater":true}').rootLater).toBe(true);
    for (const line of [
      '{"args":"x","env":{}}',
      '{"args":[1],"env":{}}',
      '{"args":[],"env":{"A":1}}',
      "nope",
    ]) {
      expect(() => parseAssignment(line)).toThrow();
    }
    const input = new PassThrough();
    const lines = lineReader(input);
    input.write("one\ntwo\n");
    input.end();
    expect([await lines.next(), await lines.next(), await lines.next()]).toEqual(["one", "two", undefined]);
  });
});

describe("spare daemon", () => {
  test("holds nothing of a computer until taken, then is that computer's daemon, taken once", async () => {
    const spare = newSpare();
    await spare.started;
    const pid = spare.child.pid as number;
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    expect(cmdline).toContain("--spare");
    expect(cmdline.some((arg) => arg.includes("state") || arg.includes("secret"))).toBe(false);
    const environ = readFileSync(`/proc/${pid}/environ`, "utf8");
    expect(environ).not.toMatch(/COMPUTERD_(SECRET|COMPUTER_ID|HOST_TOKEN)=/);
    const id = "spare-a";
    const lines: string[] = [];
    const daemon = await DaemonProcess.start(
      { ...launch(id, spare), env: { COMPUTERD_COMPUTER_ID: id }, log: (line) => lines.push(line) },
      "h1",
    );
    try {
      expect(daemon.pid).toBe(pid);
      expect(await daemon.healthy()).toBe(true);
      const refused = await fetch(`${daemon.url}/exec`, { headers: { Authorization: "Bearer wrong" } });
      expect(refused.status).toBe(401);
      await refused.body?.cancel();
      expect(spare.ready).toBe(false);
      expect(spare.take(["--port", "0"], {})).toBeUndefined();
    } finally {
      await daemon.stop();
    }
    expect(daemon.alive).toBe(false);
    // It stopped as a daemon does on SIGTERM (not killed after the grace): stdin held nothing up.
    expect(lines.some((line) => line.includes('"event":"stopped"'))).toBe(true);
  }, 120_000);

  test("taken while still starting, it reads its assignment once it is ready", async () => {
    const spare = newSpare();
    expect(spare.available).toBe(true);
    const pid = spare.child.pid;
    const id = "spare-early";
    const daemon = await DaemonProcess.start(launch(id, spare), "h1");
    try {
      expect(daemon.pid).toBe(pid);
      expect(await daemon.healthy()).toBe(true);
      expect(spare.available).toBe(false);
    } finally {
      await daemon.stop();
    }
  }, 120_000);

  test("with its root to come, it waits for the host's word: root-failed ends it before it listens", async () => {
    const spare = newSpare();
    await spare.started;
    const id = "spare-b";
    const folders = computerFolders(dir, id);
    mkdirSync(folders.stateDir, { recursive: true, mode: 0o700 });
    const secretFile = join(folders.stateDir, "secret");
    writeFileSync(secretFile, "spare-secret-0123456789abcdef", { mode: 0o600 });
    const out: string[] = [];
    const child = spare.take(
      [
        ...["--port", "0", "--mount-point", folders.mountPoint, "--state-dir", folders.stateDir],
        ...["--mount-backend", "none", "--exec-sandbox", "none", "--secret-file", secretFile],
      ],
      {},
      true,
    );
    for (const stream of [child?.stdout, child?.stderr])
      stream?.on("data", (chunk: Buffer) => out.push(chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child?.once("exit", (code) => resolve(code)));
    child?.stdin?.write("root-failed\n");
    expect(await exited).not.toBe(0);
    expect(out.join("")).not.toContain('"event":"listening"');
    expect(out.join("")).toContain("could not mount the computer's root (root-failed)");
  }, 120_000);

  test("ends when its stdin closes before it was taken", async () => {
    const spare = newSpare();
    await spare.started;
    const exited = new Promise<number | null>((resolve) => spare.child.once("exit", (code) => resolve(code)));
    spare.child.stdin?.end();
    expect(await exited).toBe(0);
  }, 120_000);
});
