/**
 * Our git (worker/src/git: isomorphic-git over a vfs on node:sqlite) against the real git:
 * clone over smart HTTP from `git http-backend` on 127.0.0.1, and repositories written by our
 * git copied to disk and checked by the real CLI (`git fsck --strict`, log, status, diff).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Vfs } from "@computer/vfs";
import { openNodeVfs } from "@computer/vfs/node";
import { type ComputerGit, computerGit, type GitContext } from "@computer/worker/git/api";
import { runGit } from "@computer/worker/git/cli";
import { vfsGitFs } from "@computer/worker/git/vfs-git-fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportTree, type GitHttpServer, git, startGitHttpServer } from "./git-http-server.ts";

const ENV = {
  GIT_AUTHOR_NAME: "Our Git",
  GIT_AUTHOR_EMAIL: "ours@example.com",
  GIT_AUTHOR_DATE: "@1700000100 +0100",
  GIT_COMMITTER_DATE: "@1700000100 +0100",
};

let root: string;
let server: GitHttpServer;
let serial = 0;

interface Fixture {
  vfs: Vfs;
  ctx: GitContext;
  api: ComputerGit;
}

function fresh(withFetch = true): Fixture {
  const vfs = openNodeVfs(join(root, `vfs-${serial++}.sqlite`));
  const ctx: GitContext = { fs: vfsGitFs(vfs), cwd: "/workspace", env: ENV };
  if (withFetch) ctx.fetch = (url, init) => fetch(url, init);
  return { vfs, ctx, api: computerGit(ctx) };
}

/** A bare repository served as `<name>.git`: history, a second branch, an executable, a symlink, binary content. */
function makeUpstream(name: string): string {
  const dir = join(root, "work", name);
  mkdirSync(join(dir, "src"), { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  writeFileSync(join(dir, "README.md"), "# upstream\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "first");
  writeFileSync(join(dir, "src", "main.js"), "console.log(1);\n");
  writeFileSync(join(dir, "run.sh"), "#!/bin/sh\necho run\n", { mode: 0o755 });
  writeFileSync(join(dir, "blob.bin"), Buffer.from([0, 1, 2, 255, 0]));
  symlinkSync("src/main.js", join(dir, "link.js"));
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "second");
  git(dir, "checkout", "-q", "-b", "dev");
  writeFileSync(join(dir, "dev.txt"), "only on dev\n");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "dev work");
  git(dir, "checkout", "-q", "main");
  writeFileSync(join(dir, "README.md"), "# upstream\nthird\n");
  git(dir, "commit", "-q", "-am", "third");
  git(root, "clone", "-q", "--bare", dir, join(root, "srv", `${name}.git`));
  return dir;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "computer-git-e2e-"));
  mkdirSync(join(root, "srv"));
  server = await startGitHttpServer(join(root, "srv"));
});

afterAll(async () => {
  await server?.close();
  rmSync(root, { recursive: true, force: true });
});

describe("clone over http from git http-backend on 127.0.0.1", () => {
  it("clones history, branches, modes, symlinks and binary content", async () => {
    const upstream = makeUpstream("full");
    const { vfs, api } = fresh();
    expect(await api.clone({ url: `${server.url}/full.git` })).toEqual({ dir: "/workspace/full" });
    expect(server.requests).toContain("GET /full.git/info/refs?service=git-upload-pack");
    expect(server.requests).toContain("POST /full.git/git-upload-pack");
    expect(vfs.readText("/full/README.md")).toBe("# upstream\nthird\n");
    expect(vfs.readText("/full/src/main.js")).toBe("console.log(1);\n");
    expect(vfs.readFile("/full/blob.bin")).toEqual(new Uint8Array([0, 1, 2, 255, 0]));
    expect(vfs.stat("/full/run.sh").mode & 0o111).not.toBe(0);
    expect(vfs.lstat("/full/link.js").type).toBe("symlink");
    expect(vfs.readlink("/full/link.js")).toBe("src/main.js");
    expect(vfs.exists("/full/dev.txt")).toBe(false);
    const ours = (await api.log({ dir: "full" })).map((c) => c.oid);
    expect(ours).toEqual(git(upstream, "rev-list", "main").trim().split("\n"));
    expect((await api.status({ dir: "full" })).entries).toEqual([]);
    // The other branch came along: checking it out creates it from origin/dev.
    await api.checkout({ dir: "full", ref: "dev" });
    expect(vfs.readText("/full/dev.txt")).toBe("only on dev\n");
    expect((await api.log({ dir: "full", depth: 1 }))[0]?.oid).toBe(git(upstream, "rev-parse", "dev").trim());
  });

  it("shallow clone of one branch, and the shell's git clone", async () => {
    const upstream = makeUpstream("shallow");
    const { vfs, ctx, api } = fresh();
    await api.clone({ url: `${server.url}/shallow.git`, dir: "s", depth: 1, singleBranch: true, ref: "dev" });
    const log = await api.log({ dir: "s" });
    expect(log.map((c) => c.oid)).toEqual([git(upstream, "rev-parse", "dev").trim()]);
    const cli = await runGit(["clone", `${server.url}/shallow.git`, "copy"], ctx);
    expect(cli).toMatchObject({ exitCode: 0, stderr: "Cloning into 'copy'...\n" });
    expect(vfs.readText("/copy/README.md")).toBe("# upstream\nthird\n");
    const again = await runGit(["clone", `${server.url}/shallow.git`, "copy"], ctx);
    expect(again.exitCode).toBe(128);
    expect(again.stderr).toContain("already exists and is not an empty directory");
  });

  it("fails cleanly: no network allowed, unknown repository, unsupported protocol", async () => {
    const offline = fresh(false);
    await expect(offline.api.clone({ url: `${server.url}/full.git` })).rejects.toThrow(
      /network access is disabled/,
    );
    const { vfs, api } = fresh();
    await expect(api.clone({ url: `${server.url}/nope.git` })).rejects.toThrow(/unable to access/);
    expect(vfs.exists("/nope")).toBe(false);
    await expect(api.clone({ url: "file:///etc/repo.git" })).rejects.toThrow(/unsupported protocol 'file'/);
    await expect(api.clone({ url: "ssh://host/repo.git", dir: "x" })).rejects.toThrow(
      /unsupported protocol 'ssh'/,
    );
  });
});

describe("repositories written by our git, checked by the real git", () => {
  it("pass git fsck --strict, with the same log, a clean status and the same file modes", async () => {
    const { vfs, ctx, api } = fresh();
    await api.init({ dir: "proj" });
    vfs.mkdir("/proj/src/deep", { recursive: true });
    vfs.writeFile("/proj/src/deep/a.txt", "alpha\n");
    vfs.writeFile("/proj/empty", "");
    vfs.writeFile("/proj/tool.sh", "#!/bin/sh\n", { mode: 0o755 });
    vfs.writeFile("/proj/bin.dat", new Uint8Array([0, 159, 146, 150]));
    vfs.writeFile("/proj/ünï cödé.txt", "unicode\n");
    vfs.symlink("src/deep/a.txt", "/proj/alias");
    await api.add({ dir: "proj" });
    const first = await api.commit({ dir: "proj", message: "initial\n\nwith a body" });
    vfs.writeFile("/proj/src/deep/a.txt", "alpha\nbeta\n");
    vfs.unlink("/proj/empty");
    await api.add({ dir: "proj", all: true });
    await api.commit({ dir: "proj", message: "second" });
    await api.branch({ dir: "proj", name: "topic", startPoint: first.oid });
    const disk = join(root, "exported-proj");
    exportTree(vfs, "/proj", disk);
    expect(git(disk, "fsck", "--full", "--strict")).toBe("");
    const ours = (await api.log({ dir: "proj" })).map(
      (c) => `${c.oid} ${c.author.name} <${c.author.email}> ${c.message.split("\n")[0]}`,
    );
    expect(git(disk, "log", "--format=%H %an <%ae> %s").trim().split("\n")).toEqual(ours);
    expect(git(disk, "log", "-1", "--format=%ad", "--date=raw").trim()).toBe("1700000100 +0100");
    expect(git(disk, "status", "--porcelain")).toBe("");
    expect(git(disk, "rev-parse", "topic").trim()).toBe(first.oid);
    expect(
      git(disk, "ls-files", "-s")
        .trim()
        .split("\n")
        .map((l) => `${l.split(" ")[0]} ${l.split("\t")[1]}`),
    ).toEqual([
      "120000 alias",
      "100644 bin.dat",
      "100644 src/deep/a.txt",
      "100755 tool.sh",
      '100644 "\\303\\274n\\303\\257 c\\303\\266d\\303\\251.txt"',
    ]);
    // And the other way: the real git reads what the shell's git command wrote.
    const cli = await runGit(["-C", "proj", "log", "--oneline"], ctx);
    expect(cli.stdout).toBe(git(disk, "log", "--oneline", "--abbrev=7"));
  });

  it("our diff prints what git diff prints", async () => {
    const { vfs, api } = fresh();
    await api.init({ dir: "d" });
    const lines = Array.from({ length: 30 }, (_, i) => `${i + 1}`);
    vfs.writeFile("/d/numbers.txt", `${lines.join("\n")}\n`);
    vfs.writeFile("/d/gone.txt", "1 going\n");
    vfs.writeFile("/d/tail.txt", "1\n2");
    await api.add({ dir: "d" });
    await api.commit({ dir: "d", message: "base" });
    const changed = [...lines];
    changed[2] = "3 changed";
    changed.splice(20, 2);
    changed.push("31", "32");
    vfs.writeFile("/d/numbers.txt", `${changed.join("\n")}\n`);
    vfs.unlink("/d/gone.txt");
    vfs.writeFile("/d/tail.txt", "1\n2\n3\n");
    vfs.writeFile("/d/new.txt", "1 new\n");
    await api.add({ dir: "d", paths: ["new.txt"] });
    const disk = join(root, "exported-diff");
    exportTree(vfs, "/d", disk);
    expect(readFileSync(join(disk, "numbers.txt"), "utf8")).toContain("3 changed");
    const ours = await api.diff({ dir: "d" });
    expect(ours.patch).toBe(git(disk, "diff", "HEAD"));
    const unstaged = await api.diff({ dir: "d", from: "index", to: "worktree" });
    expect(unstaged.patch).toBe(git(disk, "diff"));
    const staged = await api.diff({ dir: "d", from: "head", to: "index" });
    expect(staged.patch).toBe(git(disk, "diff", "--cached"));
  });
});
