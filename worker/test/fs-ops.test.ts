/** POST /v1/computers/:id/fs: the happy path of every op. */
import { describe, expect, it } from "vitest";
import { api, createComputer, expectOk, fsOp, readText, writeFile } from "./helpers.ts";

describe("fs ops", () => {
  it("mkdir (plain, recursive, with mode)", async () => {
    const id = await createComputer();
    expect(await expectOk(await fsOp(id, { op: "mkdir", path: "a" }))).toMatchObject({
      path: "/a",
      type: "dir",
      mode: "0755",
    });
    expect(
      await expectOk(await fsOp(id, { op: "mkdir", path: "/b/c/d", recursive: true, mode: "0700" })),
    ).toMatchObject({
      path: "/b/c/d",
      type: "dir",
      mode: "0700",
    });
    await expectOk(await fsOp(id, { op: "mkdir", path: "b/c", recursive: true }));
  });

  it("rename", async () => {
    const id = await createComputer();
    await writeFile(id, "a/x.txt", "x");
    const res = await expectOk(await fsOp(id, { op: "rename", from: "a/x.txt", to: "b.txt" }));
    expect(res).toMatchObject({ from: "/a/x.txt", path: "/b.txt", type: "file", size: 1 });
    expect(await readText(id, "b.txt")).toBe("x");
    await expectOk(await fsOp(id, { op: "rename", from: "a", to: "c" }));
    expect((await api(`/v1/computers/${id}/files/a`)).status).toBe(404);
  });

  it("symlink and readlink", async () => {
    const id = await createComputer();
    await writeFile(id, "t.txt", "t");
    expect(await expectOk(await fsOp(id, { op: "symlink", target: "t.txt", path: "l" }))).toMatchObject({
      path: "/l",
      type: "symlink",
      target: "t.txt",
    });
    expect(await expectOk(await fsOp(id, { op: "readlink", path: "l" }))).toEqual({
      path: "/l",
      target: "t.txt",
    });
  });

  it("link", async () => {
    const id = await createComputer();
    await writeFile(id, "orig", "same");
    expect(await expectOk(await fsOp(id, { op: "link", existing: "orig", path: "hard" }))).toMatchObject({
      nlink: 2,
    });
    expect(await readText(id, "hard")).toBe("same");
  });

  it("chmod with an octal string and an integer", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "f");
    expect(await expectOk(await fsOp(id, { op: "chmod", path: "f", mode: "0600" }))).toMatchObject({
      mode: "0600",
    });
    expect(await expectOk(await fsOp(id, { op: "chmod", path: "f", mode: 0o4755 }))).toMatchObject({
      mode: "4755",
    });
  });

  it("chown", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "f");
    expect(await expectOk(await fsOp(id, { op: "chown", path: "f", uid: 1000, gid: 100 }))).toMatchObject({
      uid: 1000,
      gid: 100,
    });
  });

  it("utimes", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "f");
    const res = await expectOk(
      await fsOp(id, {
        op: "utimes",
        path: "f",
        atime: "2020-01-01T00:00:00.000Z",
        mtime: 1_600_000_000_000,
      }),
    );
    expect(res).toMatchObject({
      atime: "2020-01-01T00:00:00.000Z",
      mtime: new Date(1_600_000_000_000).toISOString(),
    });
  });

  it("truncate", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "0123456789");
    expect(await expectOk(await fsOp(id, { op: "truncate", path: "f", length: 4 }))).toMatchObject({
      size: 4,
    });
    expect(await readText(id, "f")).toBe("0123");
  });

  it("rm (file, recursive tree, force on a missing path)", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "f");
    await writeFile(id, "t/a/b", "b");
    expect(await expectOk(await fsOp(id, { op: "rm", path: "f" }))).toEqual({ path: "/f" });
    await expectOk(await fsOp(id, { op: "rm", path: "t", recursive: true }));
    await expectOk(await fsOp(id, { op: "rm", path: "missing", force: true }));
    const { entries } = (await api(`/v1/computers/${id}/files/`).then((r) => r.json())) as {
      entries: unknown[];
    };
    expect(entries).toEqual([]);
  });

  it("stat follows symlinks unless follow: false", async () => {
    const id = await createComputer();
    await writeFile(id, "t.txt", "abc");
    await fsOp(id, { op: "symlink", target: "t.txt", path: "l" });
    const followed = await expectOk(await fsOp(id, { op: "stat", path: "l" }));
    expect(followed).toMatchObject({ path: "/l", type: "file", size: 3, mode: "0644", nlink: 1 });
    for (const key of ["uid", "gid", "ino"]) expect(typeof followed[key]).toBe("number");
    for (const key of ["mtime", "atime", "ctime"]) expect(Date.parse(String(followed[key]))).not.toBeNaN();
    expect(await expectOk(await fsOp(id, { op: "stat", path: "l", follow: false }))).toMatchObject({
      type: "symlink",
      target: "t.txt",
    });
  });

  it("readdir with paging", async () => {
    const id = await createComputer();
    for (const n of ["c", "a", "b"]) await writeFile(id, `d/${n}`, n);
    const first = await expectOk(await fsOp(id, { op: "readdir", path: "d", limit: 2 }));
    expect((first.entries as { name: string }[]).map((e) => e.name)).toEqual(["a", "b"]);
    expect(first.next).toBe("b");
    const rest = await expectOk(await fsOp(id, { op: "readdir", path: "d", after: "b" }));
    expect(rest).toEqual({
      entries: [{ name: "c", type: "file", size: 1, mode: "0644", mtime: expect.any(String) }],
    });
  });

  it("realpath", async () => {
    const id = await createComputer();
    await writeFile(id, "real/f", "f");
    await fsOp(id, { op: "symlink", target: "real", path: "alias" });
    expect(await expectOk(await fsOp(id, { op: "realpath", path: "alias/f" }))).toEqual({ path: "/real/f" });
  });

  it("du", async () => {
    const id = await createComputer();
    await writeFile(id, "d/a", "12345");
    await writeFile(id, "d/e/b", "123");
    expect(await expectOk(await fsOp(id, { op: "du", path: "d" }))).toMatchObject({
      path: "/d",
      bytes: 8,
      files: 2,
    });
  });

  it("find", async () => {
    const id = await createComputer();
    await writeFile(id, "src/a.ts", "a");
    await writeFile(id, "src/lib/b.ts", "b");
    await writeFile(id, "src/c.js", "c");
    const res = await expectOk(await fsOp(id, { op: "find", path: "src", glob: "**/*.ts" }));
    expect((res.paths as string[]).sort()).toEqual(["/src/a.ts", "/src/lib/b.ts"]);
  });

  it("grep: literal, regex, ignoreCase", async () => {
    const id = await createComputer();
    await writeFile(id, "notes/a.txt", "hello world\nHELLO again\nbye\n");
    await writeFile(id, "notes/b.txt", "nothing here\n");
    const literal = await expectOk(await fsOp(id, { op: "grep", path: "notes", pattern: "hello" }));
    expect(literal.matches).toEqual([
      expect.objectContaining({ path: "/notes/a.txt", line: 1, text: "hello world" }),
    ]);
    const ci = await expectOk(
      await fsOp(id, { op: "grep", path: "notes", pattern: "hello", ignoreCase: true }),
    );
    expect((ci.matches as { line: number }[]).map((m) => m.line)).toEqual([1, 2]);
    const re = await expectOk(await fsOp(id, { op: "grep", path: "/", pattern: "^b.e$", regex: true }));
    expect(re.matches).toEqual([expect.objectContaining({ path: "/notes/a.txt", line: 3, text: "bye" })]);
  });
});
