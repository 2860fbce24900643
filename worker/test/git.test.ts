/**
 * git over the computer's vfs inside workerd: init, add (paths and all), commit with identities
 * from arguments and environment, log, status codes, unified diffs, branches and checkout,
 * through both the `computer:git` API and the shell's `git` command.
 */
import { describe, expect, it } from "vitest";
import { withGit } from "./git-helpers.ts";

describe("git api", () => {
  it("init, add, commit, log on a vfs", () =>
    withGit(async ({ vfs, git }) => {
      expect(await git.init({ dir: "repo" })).toEqual({ dir: "/workspace/repo" });
      expect(vfs.readText("/repo/.git/HEAD")).toBe("ref: refs/heads/main\n");
      vfs.writeFile("/repo/a.txt", "one\n");
      vfs.mkdir("/repo/src");
      vfs.writeFile("/repo/src/b.js", "export {};\n");
      expect(await git.add({ dir: "repo" })).toEqual({ added: ["a.txt", "src/b.js"], removed: [] });
      const { oid } = await git.commit({ dir: "repo", message: "first" });
      expect(oid).toMatch(/^[0-9a-f]{40}$/);
      const entries = await git.log({ dir: "repo/src" });
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatchObject({
        oid,
        message: "first\n",
        parents: [],
        author: { name: "Ada", email: "ada@example.com", timestamp: 1700000000, timezoneOffset: 0 },
      });
    }));

  it("commit identity: arguments, then environment, then config, then the default", () =>
    withGit(
      async ({ vfs, git, ok }) => {
        await git.init();
        vfs.writeFile("/a", "a");
        await git.add();
        await git.commit({ message: "by default" });
        expect((await git.log())[0]?.author).toMatchObject({ name: "computer", email: "computer@localhost" });
        await ok("config", "user.name", "Grace");
        await ok("config", "user.email", "grace@example.com");
        vfs.writeFile("/a", "b");
        await git.add({ paths: "a" });
        await git.commit({ message: "by config" });
        expect((await git.log())[0]?.author).toMatchObject({ name: "Grace", email: "grace@example.com" });
        vfs.writeFile("/a", "c");
        await git.add({ paths: ["a"] });
        await git.commit({ message: "by args", author: { name: "Linus", email: "l@example.com" } });
        const [last] = await git.log({ depth: 1 });
        expect(last?.author).toMatchObject({ name: "Linus", email: "l@example.com" });
        expect(last?.committer).toMatchObject({ name: "Grace", email: "grace@example.com" });
      },
      { env: {} },
    ));

  it("status: porcelain codes for untracked, added, modified, deleted and mixed", () =>
    withGit(async ({ vfs, git }) => {
      await git.init();
      for (const name of ["keep", "modify", "remove", "stage-mod", "stage-del"])
        vfs.writeFile(`/${name}`, name);
      await git.add();
      await git.commit({ message: "base" });
      expect((await git.status()).entries).toEqual([]);
      vfs.writeFile("/modify", "changed");
      vfs.unlink("/remove");
      vfs.writeFile("/stage-mod", "changed");
      await git.add({ paths: ["stage-mod"] });
      vfs.writeFile("/stage-mod", "changed again");
      vfs.unlink("/stage-del");
      await git.add({ paths: "stage-del" });
      vfs.writeFile("/new", "new");
      vfs.writeFile("/added", "added");
      await git.add({ paths: "added" });
      vfs.writeFile("/.gitignore", "*.log\n");
      vfs.writeFile("/debug.log", "ignored");
      const result = await git.status();
      expect(result.branch).toBe("main");
      expect(result.porcelain).toBe(
        [
          "?? .gitignore",
          "A  added",
          " M modify",
          "?? new",
          " D remove",
          "D  stage-del",
          "MM stage-mod",
          "",
        ].join("\n"),
      );
    }));

  it("add of a missing path fails and stages nothing; add stages deletions", () =>
    withGit(async ({ vfs, git, run }) => {
      await git.init();
      vfs.writeFile("/a", "a");
      await expect(git.add({ paths: ["a", "nope"] })).rejects.toThrow(/pathspec 'nope' did not match/);
      expect((await git.status()).porcelain).toBe("?? a\n");
      await git.add({ paths: "a" });
      await git.commit({ message: "a" });
      vfs.unlink("/a");
      expect(await git.add({ paths: "a" })).toEqual({ added: [], removed: ["a"] });
      expect((await git.status()).porcelain).toBe("D  a\n");
      const empty = await run("commit", "-m", "");
      expect(empty).toMatchObject({
        exitCode: 128,
        stderr: "fatal: Aborting commit due to empty commit message.\n",
      });
    }));

  it("diff: unified text diffs against HEAD, new and deleted files, binary files", () =>
    withGit(async ({ vfs, git }) => {
      await git.init();
      vfs.writeFile("/text.txt", "a\nb\nc\nd\ne\nf\ng\nh\n");
      vfs.writeFile("/gone.txt", "bye\n");
      vfs.writeFile("/bin.dat", new Uint8Array([0, 1, 2, 3]));
      await git.add();
      await git.commit({ message: "base" });
      vfs.writeFile("/text.txt", "a\nb\nC\nd\ne\nf\ng\nh\ni\n");
      vfs.unlink("/gone.txt");
      vfs.writeFile("/bin.dat", new Uint8Array([0, 9, 9, 9]));
      vfs.writeFile("/fresh.txt", "hello\n");
      await git.add({ paths: "fresh.txt" });
      vfs.writeFile("/untracked.txt", "not shown\n");
      const { files, patch } = await git.diff();
      expect(files.map((f) => [f.path, f.status, f.binary])).toEqual([
        ["bin.dat", "modified", true],
        ["fresh.txt", "added", false],
        ["gone.txt", "deleted", false],
        ["text.txt", "modified", false],
      ]);
      expect(patch).toContain("Binary files a/bin.dat and b/bin.dat differ\n");
      expect(patch).toContain(
        "diff --git a/fresh.txt b/fresh.txt\nnew file mode 100644\nindex 0000000..ce01362\n--- /dev/null\n+++ b/fresh.txt\n@@ -0,0 +1 @@\n+hello\n",
      );
      expect(patch).toContain(
        "deleted file mode 100644\nindex b023018..0000000\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
      );
      expect(patch).toContain(
        "--- a/text.txt\n+++ b/text.txt\n@@ -1,8 +1,9 @@\n a\n b\n-c\n+C\n d\n e\n f\n g\n h\n+i\n",
      );
      // Limited to a path, and index → worktree (fresh.txt is staged as is: no difference there).
      const limited = await git.diff({ paths: ["text.txt"], from: "index", to: "worktree" });
      expect(limited.files.map((f) => f.path)).toEqual(["text.txt"]);
      const staged = await git.diff({ from: "head", to: "index" });
      expect(staged.files.map((f) => f.path)).toEqual(["fresh.txt"]);
    }));

  it("branches and checkout switch the working tree", () =>
    withGit(async ({ vfs, git }) => {
      await git.init();
      vfs.writeFile("/f", "main\n");
      await git.add();
      await git.commit({ message: "on main" });
      expect(await git.checkout({ ref: "feature", create: true })).toEqual({
        branches: ["feature", "main"],
        current: "feature",
      });
      vfs.writeFile("/f", "feature\n");
      vfs.writeFile("/only-feature", "x");
      await git.add();
      await git.commit({ message: "on feature" });
      await git.checkout({ ref: "main" });
      expect(vfs.readText("/f")).toBe("main\n");
      expect(vfs.exists("/only-feature")).toBe(false);
      vfs.writeFile("/f", "dirty\n");
      await expect(git.checkout({ ref: "feature" })).rejects.toThrow();
      expect(vfs.readText("/f")).toBe("dirty\n");
      await git.checkout({ ref: "feature", force: true });
      expect(vfs.readText("/f")).toBe("feature\n");
      await git.checkout({ ref: "main" });
      expect((await git.branch({ name: "feature", delete: true })).branches).toEqual(["main"]);
    }));
});

describe("git command", () => {
  it("runs the everyday workflow with git's output", () =>
    withGit(async ({ vfs, run, ok }) => {
      expect(await ok("init", "proj")).toBe("Initialized empty Git repository in /workspace/proj/.git/\n");
      vfs.writeFile("/proj/README.md", "# proj\n");
      const inProj = (...argv: string[]) => ok("-C", "proj", ...argv);
      expect(await inProj("status", "--short")).toBe("?? README.md\n");
      await inProj("add", ".");
      expect(await inProj("commit", "-m", "initial import")).toMatch(
        /^\[main \(root-commit\) [0-9a-f]{7}\] initial import\n$/,
      );
      vfs.writeFile("/proj/README.md", "# proj\nmore\n");
      expect(await inProj("commit", "-am", "second")).toMatch(/^\[main [0-9a-f]{7}\] second\n$/);
      const oneline = await inProj("log", "--oneline");
      expect(oneline).toMatch(/^[0-9a-f]{7} second\n[0-9a-f]{7} initial import\n$/);
      const full = await inProj("log", "-n", "1");
      expect(full).toMatch(
        /^commit [0-9a-f]{40}\nAuthor: Ada <ada@example.com>\nDate: {3}Tue Nov 14 22:13:20 2023 \+0000\n\n {4}second\n$/,
      );
      expect(await inProj("status")).toBe("On branch main\nnothing to commit, working tree clean\n");
      vfs.writeFile("/proj/README.md", "# proj\n");
      expect(await inProj("diff")).toContain("@@ -1,2 +1 @@\n # proj\n-more\n");
      expect(await inProj("rev-parse", "--abbrev-ref", "HEAD")).toBe("main\n");
      expect(await inProj("branch")).toBe("* main\n");
      const outside = await run("status");
      expect(outside.exitCode).toBe(128);
      expect(outside.stderr).toMatch(/^fatal: not a git repository/);
      const unknown = await run("frobnicate");
      expect(unknown.exitCode).toBe(129);
    }));
});
