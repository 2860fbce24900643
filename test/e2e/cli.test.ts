/**
 * The `computer` CLI's real binary against the local fleet: --help, the --json shapes of the
 * computer and file commands, byte-exact transfers of a 20 MiB random file both ways (file,
 * stdin, stdout, pipes), history and tokens, login's 0600 config, shell completion, and every
 * bad-input case as one line with its documented exit code and nothing changed remotely.
 */
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Fleet, freePort, startFleet } from "@computer/fleet";
import { type Computer, ComputerClient } from "@computer/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, type CliRun, cliEnv, runCli } from "./cli-run.ts";

let fleet: Fleet;
let admin: ComputerClient;
let demo: Computer;
let env: Record<string, string>;
const dir = mkdtempSync(join(tmpdir(), "computer-cli-"));
const sha = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** `computer ...args` as the admin on computer `cli-demo`. */
const cli = (args: string[], input?: Buffer | string) =>
  runCli(args, env, input === undefined ? { cwd: dir } : { cwd: dir, input });

/** Expects a failure: one line `computer: CODE: ...` on stderr, nothing on stdout, `exit`. */
function expectFailure(run: CliRun, code: string, exit: number): void {
  expect({ code: run.code, stdout: run.stdout }, run.stderr).toEqual({ code: exit, stdout: "" });
  expect(run.stderr.trimEnd().split("\n"), run.stderr).toHaveLength(1);
  expect(run.stderr).toMatch(new RegExp(`^computer: ${code}: `));
}

beforeAll(async () => {
  fleet = await startFleet();
  admin = new ComputerClient({ url: fleet.url, token: fleet.adminToken });
  env = {
    COMPUTER_URL: fleet.url,
    COMPUTER_TOKEN: fleet.adminToken,
    COMPUTER_ID: "cli-demo",
    COMPUTER_CONFIG_DIR: join(dir, "config"),
  };
  demo = admin.computer("cli-demo");
});

afterAll(async () => {
  await fleet?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("help and usage", () => {
  it("--help on the program and on every command exits 0", async () => {
    const top = await cli(["--help"]);
    expect(top.code).toBe(0);
    for (const name of [
      "create",
      "ls",
      "cat",
      "put",
      "get",
      "exec",
      "logs",
      "checkpoint",
      "token",
      "completion",
    ]) {
      expect(top.stdout).toContain(name);
    }
    // Every command and subcommand its parent's help lists, walked from the top.
    const helped: string[] = [];
    const walk = async (path: string[], help: string) => {
      const commands = help.split("Commands:\n")[1] ?? "";
      for (const [, name] of commands.matchAll(/^ {2}([a-z][a-z-]*)/gm)) {
        if (name === undefined || name === "help") continue;
        const run = await cli([...path, name, "--help"]);
        expect(run.code, [...path, name].join(" ")).toBe(0);
        expect(run.stdout).toMatch(new RegExp(`^Usage: computer ${[...path, name].join(" ")} `));
        helped.push([...path, name].join(" "));
        await walk([...path, name], run.stdout);
      }
    };
    await walk([], top.stdout);
    expect(helped).toEqual(expect.arrayContaining(["exec", "checkpoint restore", "token revoke", "mcp"]));
    expect(helped.length).toBeGreaterThan(30);
    const help = await cli(["help", "put"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: computer put /);
  }, 120_000);

  it("an unknown command or a missing argument is exit 2 with a one-line reason first", async () => {
    const unknown = await cli(["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^computer: unknown command 'frobnicate'/);
    const missing = await cli(["put", "only-one"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^computer: missing required argument 'remote'/);
    const bad = await cli(["create", "x", "--quota", "lots"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe("computer: --quota: expected a size like 1073741824, 512M or 1G, got 'lots'\n");
  });
});

describe("computers", () => {
  it("create, list, info and delete answer stable --json shapes", async () => {
    const created = await cli(["create", "cli-demo", "--quota", "64M", "--json"]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout)).toMatchObject({
      id: "cli-demo",
      created: true,
      quotaBytes: 64 * 1024 ** 2,
    });
    expect(JSON.parse((await cli(["create", "cli-demo", "--json"])).stdout)).toMatchObject({
      created: false,
    });
    expect((await cli(["create", "cli-gone"])).stdout).toBe("created cli-gone\n");
    const list = JSON.parse((await cli(["list", "--json"])).stdout) as { computers: { id: string }[] };
    expect(list.computers.map((c) => c.id)).toEqual(expect.arrayContaining(["cli-demo", "cli-gone"]));
    // --computer works before and after the command, and overrides COMPUTER_ID.
    const before = JSON.parse((await cli(["--computer", "cli-gone", "info", "--json"])).stdout);
    const after = JSON.parse((await cli(["info", "--json", "--computer", "cli-gone"])).stdout);
    expect(before).toMatchObject({ id: "cli-gone", usedBytes: 0, egress: "none" });
    expect(after).toEqual(before);
    expect(JSON.parse((await cli(["delete", "cli-gone", "--json"])).stdout)).toEqual({
      id: "cli-gone",
      deleted: true,
    });
    expectFailure(await cli(["info", "cli-gone"]), "ENOENT", 3);
  });
});

describe("files", () => {
  const big = randomBytes(20 * 1024 * 1024);
  beforeAll(() => writeFileSync(join(dir, "big.bin"), big));

  it("put then cat and get: a 20 MiB random file byte for byte, through files, stdin and stdout", async () => {
    const put = await cli(["put", "big.bin", "data/big.bin", "--json"]);
    expect(put.code, put.stderr).toBe(0);
    expect(JSON.parse(put.stdout)).toMatchObject({ path: "/data/big.bin", size: big.length });
    expect(put.stderr).toBe("");
    const cat = await cli(["cat", "data/big.bin"]);
    expect(cat.code).toBe(0);
    expect(sha(cat.bytes)).toBe(sha(big));
    const piped = await cli(["put", "-", "data/piped.bin"], big);
    expect(piped.code, piped.stderr).toBe(0);
    expect(sha(Buffer.from(await demo.files.read("data/piped.bin")))).toBe(sha(big));
    const got = await cli(["get", "data/piped.bin", "back.bin"]);
    expect(got.code, got.stderr).toBe(0);
    expect(sha(readFileSync(join(dir, "back.bin")))).toBe(sha(big));
    const toStdout = await cli(["get", "data/big.bin", "-"]);
    expect(sha(toStdout.bytes)).toBe(sha(big));
    // A shell pipe, as a user writes it.
    const shell = execFileSync("bash", ["-c", `"${CLI}" cat data/big.bin | sha256sum`], {
      env: cliEnv(env),
      cwd: dir,
    });
    expect(shell.toString().split(" ")[0]).toBe(sha(big));
  }, 120_000);

  it("ls, stat, mkdir -p, mv, chmod, rm -r with --json shapes", async () => {
    expect((await cli(["mkdir", "-p", "tree/a/b"])).code).toBe(0);
    await demo.files.write("tree/a/b/f.txt", "hello");
    const ls = JSON.parse((await cli(["ls", "tree/a/b", "--json"])).stdout);
    expect(ls).toEqual({
      path: "/tree/a/b",
      entries: [{ name: "f.txt", type: "file", size: 5, mode: "0644", mtime: expect.any(String) }],
    });
    expect((await cli(["ls", "tree/a"])).stdout).toBe("b/\n");
    expect((await cli(["ls", "-l", "tree/a/b"])).stdout).toMatch(/^0644 {2}file {2}5 {2}\S+ {2}f\.txt\n$/);
    const stat = JSON.parse((await cli(["stat", "tree/a/b/f.txt", "--json"])).stdout);
    expect(stat).toMatchObject({
      path: "/tree/a/b/f.txt",
      type: "file",
      size: 5,
      nlink: 1,
      timespec: expect.any(Object),
    });
    expect((await cli(["mv", "tree/a/b/f.txt", "tree/g.txt"])).code).toBe(0);
    expect(JSON.parse((await cli(["chmod", "600", "tree/g.txt", "--json"])).stdout).changed[0]).toMatchObject(
      {
        mode: "0600",
      },
    );
    expect((await cli(["cat", "tree/g.txt"])).stdout).toBe("hello");
    expectFailure(await cli(["rm", "tree"]), "ENOTEMPTY", 1);
    expect((await cli(["rm", "-r", "tree"])).code).toBe(0);
    expect(await demo.files.exists("tree")).toBe(false);
  });

  it("get, mkdir, mv and rm answer their --json shapes", async () => {
    await demo.files.write("j/one.txt", "one");
    const json = async (args: string[]) => {
      const run = await cli([...args, "--json"]);
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout);
    };
    expect(await json(["get", "j/one.txt", "one.txt"])).toEqual({ path: "one.txt", size: 3 });
    const made = (await json(["mkdir", "-p", "j/a/b", "j/c"])) as {
      created: { path: string; type: string }[];
    };
    expect(made.created).toMatchObject([
      { path: "/j/a/b", type: "dir" },
      { path: "/j/c", type: "dir" },
    ]);
    expect(await json(["mv", "j/one.txt", "j/two.txt"])).toMatchObject({
      path: "/j/two.txt",
      type: "file",
      size: 3,
    });
    expect(await json(["rm", "-r", "j/a", "j/two.txt"])).toEqual({ removed: ["j/a", "j/two.txt"] });
    expect((await demo.files.list("j")).entries.map((e) => e.name)).toEqual(["c"]);
    const folder = await cli(["get", "j"]);
    expect(folder).toMatchObject({
      code: 2,
      stdout: "",
      stderr: "computer: get: j is a directory (use -r)\n",
    });
    expect(readdirSync(dir).filter((name) => name === "j" || name.startsWith("j.part-"))).toEqual([]);
  });

  it("put -r and get -r copy a folder tree", async () => {
    execFileSync("bash", ["-c", "mkdir -p src/lib && echo a > src/a.txt && echo b > src/lib/b.txt"], {
      cwd: dir,
    });
    expect((await cli(["put", "-r", "src", "proj/"])).stdout).toBe("uploaded 2 files to proj/src\n");
    expect(await demo.files.readText("proj/src/lib/b.txt")).toBe("b\n");
    const got = await cli(["get", "-r", "proj/src", "copy", "--json"]);
    expect(JSON.parse(got.stdout)).toEqual({ path: "copy", files: 2 });
    expect(readFileSync(join(dir, "copy/lib/b.txt"), "utf8")).toBe("b\n");
  });
});

describe("bad input: one line, the documented exit code, nothing changed", () => {
  it("a missing computer, a missing file and a bad path", async () => {
    expectFailure(await cli(["--computer", "no-such-computer", "ls"]), "ENOENT", 3);
    expectFailure(await cli(["--computer", "no-such-computer", "put", "-", "x.txt"], "x"), "ENOENT", 3);
    expect((await admin.computers.list()).computers.map((c) => c.id)).not.toContain("no-such-computer");
    const missing = await cli(["cat", "notes/x.txt"]);
    expectFailure(missing, "ENOENT", 3);
    expect(missing.stderr).toBe("computer: ENOENT: no such file or directory: notes/x.txt\n");
    expectFailure(await cli(["put", "big.bin", "a/../b.bin"]), "EINVAL", 1);
    expectFailure(await cli(["mkdir", `${"n".repeat(300)}`]), "ENAMETOOLONG", 1);
    expect(await demo.files.exists("b.bin")).toBe(false);
  });

  it("an ro token writing is EFORBIDDEN and the file keeps its bytes", async () => {
    await demo.files.write("keep.txt", "original");
    const ro = JSON.parse((await cli(["token", "create", "--ro", "--ttl", "1h", "--json"])).stdout) as {
      token: string;
      expiresAt: string;
    };
    expect(Date.parse(ro.expiresAt) - Date.now()).toBeGreaterThan(3500_000);
    const asRo = (args: string[], input?: string) =>
      runCli(args, { ...env, COMPUTER_TOKEN: ro.token }, { cwd: dir, ...(input ? { input } : {}) });
    expect((await asRo(["cat", "keep.txt"])).stdout).toBe("original");
    expectFailure(await asRo(["put", "-", "keep.txt"], "changed"), "EFORBIDDEN", 4);
    expectFailure(await asRo(["rm", "keep.txt"]), "EFORBIDDEN", 4);
    expect(await demo.files.readText("keep.txt")).toBe("original");
  });

  it("a wrong URL is exit 5; a wrong, revoked or expired token exit 4", async () => {
    const nowhere = await runCli(["ls"], { ...env, COMPUTER_URL: `http://127.0.0.1:${await freePort()}` });
    expectFailure(nowhere, "ECONNREFUSED", 5);
    expectFailure(await runCli(["ls"], { ...env, COMPUTER_TOKEN: "wrong" }), "EUNAUTHORIZED", 4);
    const short = JSON.parse((await cli(["token", "create", "--ttl", "1", "--json"])).stdout) as {
      token: string;
    };
    const deadline = Date.now() + 10_000;
    let run: CliRun;
    do {
      run = await runCli(["ls"], { ...env, COMPUTER_TOKEN: short.token });
    } while (run.code === 0 && Date.now() < deadline);
    expectFailure(run, "EUNAUTHORIZED", 4);
    const expiredWrite = await runCli(
      ["put", "-", "keep.txt"],
      { ...env, COMPUTER_TOKEN: short.token },
      { input: "x" },
    );
    expectFailure(expiredWrite, "EUNAUTHORIZED", 4);
    const rw = JSON.parse((await cli(["token", "create", "--json"])).stdout) as { token: string };
    expect((await cli(["token", "revoke"])).stdout).toBe("revoked the tokens of cli-demo\n");
    expect(JSON.parse((await cli(["token", "revoke", "--json"])).stdout)).toEqual({
      computer: "cli-demo",
      revoked: true,
    });
    expectFailure(await runCli(["ls"], { ...env, COMPUTER_TOKEN: rw.token }), "EUNAUTHORIZED", 4);
    const nowhereWrite = await runCli(
      ["put", "-", "keep.txt"],
      { ...env, COMPUTER_URL: `http://127.0.0.1:${await freePort()}` },
      { input: "x" },
    );
    expectFailure(nowhereWrite, "ECONNREFUSED", 5);
    expect(await demo.files.readText("keep.txt")).toBe("original");
  });

  it("no configuration at all is a usage error (exit 2)", async () => {
    const run = await runCli(["ls"], { COMPUTER_CONFIG_DIR: join(dir, "empty-config") });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^computer: no API URL: run `computer login/);
  });
});

describe("history and publishing", () => {
  it("checkpoint create/list/restore, fork and publish", async () => {
    await demo.files.write("h.txt", "one");
    expect(JSON.parse((await cli(["checkpoint", "create", "v1", "--json"])).stdout)).toMatchObject({
      name: "v1",
    });
    await demo.files.write("h.txt", "two");
    const list = JSON.parse((await cli(["checkpoint", "list", "--json"])).stdout) as {
      checkpoints: { name: string }[];
    };
    expect(list.checkpoints.map((c) => c.name)).toEqual(["v1"]);
    expect((await cli(["checkpoint", "restore", "v1"])).stdout).toMatch(/^restored v1 \(rev \d+\)\n$/);
    expect(await demo.files.readText("h.txt")).toBe("one");
    expect(JSON.parse((await cli(["checkpoint", "restore", "v1", "--json"])).stdout)).toMatchObject({
      name: "v1",
      rev: expect.any(Number),
    });
    expectFailure(await cli(["checkpoint", "create", "v1"]), "EEXIST", 1);
    expect((await cli(["fork", "cli-fork", "--json"])).code).toBe(0);
    expect(await admin.computer("cli-fork").files.readText("h.txt")).toBe("one");
    const url = (await cli(["publish", "h.txt", "--name", "cli-h"])).stdout.trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/a\/cli-h\/1\//);
    expect(await (await fetch(url)).text()).toBe("one");
    const again = JSON.parse((await cli(["publish", "h.txt", "--name", "cli-h", "--json"])).stdout);
    expect(again).toMatchObject({
      name: "cli-h",
      version: "2",
      url: expect.stringMatching(/\/a\/cli-h\/2\//),
    });
  });
});

describe("login, use and completion", () => {
  it("login checks URL and token and writes a 0600 config the next commands use", async () => {
    const config = join(dir, "login-config");
    const bare = { COMPUTER_CONFIG_DIR: config };
    const wrong = await runCli(["login", "--url", fleet.url, "--token", "nope"], bare);
    expectFailure(wrong, "EUNAUTHORIZED", 4);
    const login = await runCli(["login", "--url", fleet.url, "--token-stdin"], bare, {
      input: `${fleet.adminToken}\n`,
    });
    expect(login.code, login.stderr).toBe(0);
    const file = join(config, "config.json");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ url: fleet.url, token: fleet.adminToken });
    expect((await runCli(["use", "cli-demo"], bare)).stdout).toBe("using cli-demo\n");
    expect(JSON.parse((await runCli(["use", "cli-demo", "--json"], bare)).stdout)).toEqual({
      computer: "cli-demo",
    });
    const relogin = await runCli(["login", "--url", fleet.url, "--token-stdin", "--json"], bare, {
      input: `${fleet.adminToken}\n`,
    });
    expect(JSON.parse(relogin.stdout)).toEqual({ url: fleet.url, computer: null, config: file });
    expect((await runCli(["cat", "keep.txt"], bare)).stdout).toBe("original");
  });

  it("bash completion completes commands, subcommands and options", async () => {
    const script = (await cli(["completion", "bash"])).stdout;
    const complete = (line: string) =>
      execFileSync("bash", [
        "-c",
        `${script}\nCOMP_WORDS=(${line}); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _computer_complete; echo "\${COMPREPLY[*]}"`,
      ])
        .toString()
        .trim()
        .split(" ");
    expect(complete("computer ch ''".replace(" ''", ""))).toEqual(
      expect.arrayContaining(["checkpoint", "chmod"]),
    );
    expect(complete("computer checkpoint ''")).toEqual(expect.arrayContaining(["create", "list", "restore"]));
    expect(complete("computer --computer x exec --r")).toEqual(["--runtime"]);
    expect((await cli(["completion", "fish"])).code).toBe(2);
  });

  it("zsh completion registers through bashcompinit and completes as zsh runs it", async () => {
    writeFileSync(join(dir, "completion.zsh"), (await cli(["completion", "zsh"])).stdout);
    const driver = fileURLToPath(new URL("./fixtures/zsh-complete.zsh", import.meta.url));
    const complete = (...line: string[]) => {
      const out = execFileSync("zsh", ["-f", driver, join(dir, "completion.zsh"), ...line], {
        env: { ...cliEnv(env), ZDOTDIR: dir },
      });
      const [registered, ...candidates] = out.toString().trim().split("\n");
      return { registered, candidates: candidates.filter((c) => c.startsWith(line.at(-1) ?? "")) };
    };
    const top = complete("computer", "ch");
    expect(top.registered).toBe("registered: _bash_complete -o default -F _computer_complete");
    expect(top.candidates).toEqual(expect.arrayContaining(["checkpoint", "chmod"]));
    expect(complete("computer", "checkpoint", "").candidates).toEqual(
      expect.arrayContaining(["create", "list", "restore"]),
    );
    expect(complete("computer", "--computer", "x", "exec", "--r").candidates).toEqual(["--runtime"]);
  });
});

describe("computer preview", () => {
  it("opens a preview and prints its URL, lists and closes it; bad ports are usage errors", async () => {
    await admin.computers.create("cli-preview");
    const on = (args: string[]) => cli([...args, "--computer", "cli-preview"]);
    const opened = await on(["preview", "3000"]);
    expect(opened.code, opened.stderr).toBe(0);
    const url = opened.stdout.trim();
    expect(url).toMatch(new RegExp(`^${fleet.url}/p/cli-preview/3000/`));
    const json = JSON.parse((await on(["preview", "3000", "--json"])).stdout) as {
      url: string;
      access: string;
    };
    expect(json).toMatchObject({ url, access: "public" });
    const listed = JSON.parse((await on(["preview", "--list", "--json"])).stdout) as {
      previews: { port: number }[];
    };
    expect(listed.previews.map((p) => p.port)).toEqual([3000]);
    expect((await on(["preview", "--list"])).stdout).toContain(url);
    expectFailure(await on(["preview", "3000", "--private"]), "EEXIST", 1);
    expect((await on(["preview", "3000", "--close"])).stdout).toBe("closed the preview of port 3000\n");
    await on(["preview", "3001"]);
    expect(JSON.parse((await on(["preview", "3001", "--close", "--json"])).stdout)).toEqual({
      port: 3001,
      closed: true,
    });
    expectFailure(await on(["preview", "3000", "--close"]), "ENOENT", 3);
    expect((await fetch(url)).status).toBe(404);
    for (const bad of [["preview", "0"], ["preview", "70000"], ["preview"], ["preview", "x"]]) {
      const run = await on(bad);
      expect(run.code, run.stderr).toBe(2);
    }
    expect((await admin.computer("cli-preview").previews.list()).length).toBe(0);
  });
});
