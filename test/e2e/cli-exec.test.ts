/**
 * `computer exec` and friends through the real binary against the local fleet: live output on
 * the right streams, the command's exit code as the CLI's, stdin forwarded, --env/--cwd,
 * --json, --detach then `logs -f`, `ps`, `kill`, Ctrl-C killing the remote command (exit 130),
 * a container command where this machine runs containers, and the progress bar only on a
 * terminal (a pty from `script`), never in a pipe.
 */
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Fleet, startFleet } from "@computer/fleet";
import { containerCapable } from "@computer/fleet/capabilities";
import { type Computer, ComputerClient } from "@computer/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, cliEnv, runCli } from "./cli-run.ts";

let fleet: Fleet;
let demo: Computer;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), "computer-cli-exec-"));
const cli = (args: string[], input?: string) =>
  runCli(args, env, input === undefined ? { cwd: dir } : { cwd: dir, input });

beforeAll(async () => {
  fleet = await startFleet({ computerdHost: containerCapable });
  const admin = new ComputerClient({ url: fleet.url, token: fleet.adminToken });
  await admin.computers.create("cli-exec");
  demo = admin.computer("cli-exec");
  env = {
    COMPUTER_URL: fleet.url,
    COMPUTER_TOKEN: fleet.adminToken,
    COMPUTER_ID: "cli-exec",
    COMPUTER_CONFIG_DIR: join(dir, "config"),
  };
}, 180_000);

afterAll(async () => {
  await fleet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("exec", () => {
  it("puts the command's stdout and stderr on the CLI's and exits with its code", async () => {
    const run = await cli(["exec", "--runtime", "shell", "--", "echo out; echo err >&2; exit 7"]);
    expect(run).toMatchObject({ code: 7, stdout: "out\n", stderr: "err\n" });
    const words = await cli(["exec", "--runtime", "shell", "--", "echo", "a  b", "c"]);
    expect(words).toMatchObject({ code: 0, stdout: "a  b c\n" });
  });

  it("forwards stdin, --env and --cwd; --json answers the result object", async () => {
    await demo.files.mkdir("work/dir", { recursive: true });
    const run = await cli(
      [
        "exec",
        "--runtime",
        "shell",
        "--cwd",
        "/workspace/work/dir",
        "-e",
        "GREETING=hi",
        "--json",
        "--",
        "read line; echo $GREETING $line; pwd",
      ],
      "from stdin\n",
    );
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      id: expect.stringMatching(/^ex_/),
      runtime: "shell",
      status: "completed",
      exitCode: 0,
      stdout: "hi from stdin\n/workspace/work/dir\n",
    });
    const js = await cli(["exec", "--runtime", "js", "--json", "--", "export default () => 6 * 7"]);
    expect(JSON.parse(js.stdout)).toMatchObject({ status: "completed", value: 42 });
  });

  it("--detach prints the id; logs -f re-attaches and exits with its code; ps lists it", async () => {
    const started = await cli([
      "exec",
      "--runtime",
      "shell",
      "--detach",
      "--",
      "echo one; sleep 1; echo two; exit 3",
    ]);
    const id = started.stdout.trim();
    expect(id).toMatch(/^ex_[0-9a-f]{24}$/);
    const logs = await cli(["logs", "-f", id]);
    expect(logs).toMatchObject({ code: 3, stdout: "one\ntwo\n" });
    expect((await cli(["logs", id])).stdout).toBe("one\ntwo\n");
    const ps = JSON.parse((await cli(["ps", "--json", "-n", "5"])).stdout) as {
      execs: { id: string; status: string }[];
    };
    expect(ps.execs.find((e) => e.id === id)).toMatchObject({ status: "failed" });
    expect((await cli(["ps"])).stdout).toMatch(
      new RegExp(`^ID +RUNTIME +STATUS[^\\n]*\\n(.*\\n)*${id} +shell +failed`),
    );
  });

  it("--detach, logs, logs -f and kill answer their --json shapes", async () => {
    const detached = await cli(["exec", "--runtime", "shell", "--detach", "--json", "--", "echo up; exit 4"]);
    const { id } = JSON.parse(detached.stdout) as { id: string };
    expect(id).toMatch(/^ex_[0-9a-f]{24}$/);
    const followed = await cli(["logs", "-f", id, "--json"]);
    expect(followed.code).toBe(4);
    expect(JSON.parse(followed.stdout)).toMatchObject({ id, status: "failed", exitCode: 4, stdout: "up\n" });
    expect(JSON.parse((await cli(["logs", id, "--json"])).stdout)).toMatchObject({ id, stdout: "up\n" });
    const running = (await cli(["exec", "--runtime", "shell", "-d", "--", "sleep 30"])).stdout.trim();
    expect(JSON.parse((await cli(["kill", running, "--json"])).stdout)).toMatchObject({
      id: running,
      status: "killed",
    });
  });

  it("--timeout ends the command and exits 124, the CLI's one line after the command's stderr", async () => {
    const run = await cli(["exec", "--runtime", "shell", "--timeout", "1s", "--", "echo begun; sleep 30"]);
    expect(run).toMatchObject({ code: 124, stdout: "begun\n" });
    // just-bash reports the abort on the command's own stderr first ("bash: execution aborted").
    expect(run.stderr).toMatch(/(^|\n)computer: ETIMEDOUT: ex_[0-9a-f]{24} ran past its timeout\n$/);
  });

  it("kill ends a running exec", async () => {
    const id = (await cli(["exec", "--runtime", "shell", "-d", "--", "echo up; sleep 30"])).stdout.trim();
    // Its first output, live.
    const stream = await demo.exec.attach(id);
    for await (const event of stream) if (event.type === "stdout") break;
    await stream.close();
    expect((await cli(["kill", id])).stdout).toBe(`${id} killed\n`);
    const logs = await cli(["logs", "-f", id]);
    expect(logs.code).toBe(137);
  });

  it("Ctrl-C kills the remote command and exits 130", async () => {
    const child = spawn(CLI, ["exec", "--runtime", "shell", "--", "echo started; sleep 30; echo never"], {
      env: cliEnv(env),
      cwd: dir,
    });
    child.stdin.end();
    let out = "";
    const started = new Promise<void>((resolve) => {
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes("started")) resolve();
      });
    });
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    await started;
    child.kill("SIGINT");
    expect(await exited).toBe(130);
    expect(out).toBe("started\n");
    const [latest] = await demo.exec.list({ limit: 1 });
    expect(latest).toMatchObject({ status: "killed" });
  });

  it("bad input: no command, an unknown runtime, a bad --env", async () => {
    expect((await cli(["exec", "--runtime", "shell"])).code).toBe(2);
    const runtime = await cli(["exec", "--runtime", "cobol", "--", "x"]);
    expect(runtime).toMatchObject({
      code: 2,
      stderr: "computer: --runtime: expected one of container, shell, js, got 'cobol'\n",
    });
    expect((await cli(["exec", "-e", "NOEQUALS", "--", "true"])).code).toBe(2);
    expect((await cli(["logs", "ex_000000000000000000000000"])).code).toBe(3);
  });

  it.skipIf(!containerCapable)(
    "runs in the container and syncs what it wrote",
    async () => {
      const run = await cli(["exec", "--", "echo made in a container > box.txt && uname -s"]);
      expect(run).toMatchObject({ code: 0, stdout: "Linux\n" });
      expect(await demo.files.readText("box.txt")).toBe("made in a container\n");
    },
    120_000,
  );
});

/** Runs `command` on a pseudo-terminal (`script` copies what the terminal showed), escapes removed. */
async function onTerminal(command: string): Promise<string> {
  const { stdout } = await promisify(execFile)("script", ["-qec", command, "/dev/null"], {
    env: cliEnv(env),
    cwd: dir,
  });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escape sequences
  return stdout.replace(/\x1b(\[[0-9;?]*[A-Za-z]|[78])/g, "");
}

describe("progress bar", () => {
  const big = join(dir, "big.bin");
  beforeAll(() => writeFileSync(big, randomBytes(8 * 1024 * 1024)));

  it("shows on a terminal and never in a pipe, for put and for get", async () => {
    expect(await cli(["put", big, "big.bin"])).toMatchObject({ code: 0, stderr: "" });
    const put = await onTerminal(`"${CLI}" put "${big}" big2.bin`);
    expect(put).toMatch(/put big\.bin \[=+\] 100% \| 8\.0 MiB of 8\.0 MiB/);
    expect((await demo.files.head("big2.bin")).size).toBe(8 * 1024 * 1024);
    // get's bar starts once the download says its size.
    expect(await cli(["get", "big2.bin", "piped.bin"])).toMatchObject({ code: 0, stderr: "" });
    const get = await onTerminal(`"${CLI}" get big2.bin back.bin`);
    expect(get).toMatch(/get big2\.bin \[=+\] 100% \| 8\.0 MiB of 8\.0 MiB/);
    expect(readFileSync(join(dir, "back.bin")).equals(readFileSync(big))).toBe(true);
  });
});
