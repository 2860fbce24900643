/**
 * Extended attributes through POST /fs: set, get, list and remove with base64 values, the
 * create/replace flags, symlinks with follow: false, read-only tokens, and bad input that
 * answers a clear code and changes nothing.
 */
import { describe, expect, it } from "vitest";
import { createComputer, expectError, expectOk, fsOp, mintToken, snapshot, writeFile } from "./helpers.ts";

function b64(bytes: number[]): string {
  return btoa(String.fromCharCode(...bytes));
}

async function names(id: string, path: string, follow = true): Promise<unknown> {
  return (await expectOk(await fsOp(id, { op: "listxattr", path, follow }))).names;
}

describe("xattr ops", () => {
  it("set, get, list and remove, with binary and empty values", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "x");
    const binary = b64([0, 1, 2, 255, 254, 10, 0]);
    expect(
      await expectOk(await fsOp(id, { op: "setxattr", path: "f", name: "user.bin", value: binary })),
    ).toEqual({
      path: "/f",
      name: "user.bin",
      size: 7,
    });
    await expectOk(await fsOp(id, { op: "setxattr", path: "/f", name: "user.empty", value: "" }));
    await expectOk(await fsOp(id, { op: "setxattr", path: "f", name: "user.a", value: btoa("text") }));
    expect(await names(id, "f")).toEqual(["user.a", "user.bin", "user.empty"]);
    expect(await expectOk(await fsOp(id, { op: "getxattr", path: "f", name: "user.bin" }))).toEqual({
      path: "/f",
      name: "user.bin",
      value: binary,
    });
    expect((await expectOk(await fsOp(id, { op: "getxattr", path: "f", name: "user.empty" }))).value).toBe(
      "",
    );
    expect(await expectOk(await fsOp(id, { op: "removexattr", path: "f", name: "user.a" }))).toEqual({
      path: "/f",
      name: "user.a",
    });
    expect(await names(id, "f")).toEqual(["user.bin", "user.empty"]);
    await expectError(await fsOp(id, { op: "getxattr", path: "f", name: "user.a" }), 404, "ENODATA");
  });

  it("setxattr changes the ctime but not the mtime", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "x");
    const mtime = { sec: 1000, nsec: 1 };
    await expectOk(await fsOp(id, { op: "utimes", path: "f", atime: mtime, mtime }));
    const before = await expectOk(await fsOp(id, { op: "stat", path: "f" }));
    await expectOk(await fsOp(id, { op: "setxattr", path: "f", name: "user.k", value: btoa("v") }));
    const after = await expectOk(await fsOp(id, { op: "stat", path: "f" }));
    const t = (s: Record<string, unknown>) =>
      s.timespec as { mtime: unknown; ctime: { sec: number; nsec: number } };
    expect(t(after).mtime).toEqual(mtime);
    expect(t(after).ctime).not.toEqual(t(before).ctime);
  });

  it("flag create refuses an existing name, flag replace a missing one", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "x");
    await expectOk(
      await fsOp(id, { op: "setxattr", path: "f", name: "user.k", value: btoa("1"), flag: "create" }),
    );
    await expectError(
      await fsOp(id, { op: "setxattr", path: "f", name: "user.k", value: btoa("2"), flag: "create" }),
      409,
      "EEXIST",
    );
    await expectError(
      await fsOp(id, { op: "setxattr", path: "f", name: "user.other", value: btoa("2"), flag: "replace" }),
      404,
      "ENODATA",
    );
    await expectOk(
      await fsOp(id, { op: "setxattr", path: "f", name: "user.k", value: btoa("3"), flag: "replace" }),
    );
    expect((await expectOk(await fsOp(id, { op: "getxattr", path: "f", name: "user.k" }))).value).toBe(
      btoa("3"),
    );
    expect(await names(id, "f")).toEqual(["user.k"]);
  });

  it("follow: false acts on the symlink itself", async () => {
    const id = await createComputer();
    await writeFile(id, "t", "x");
    await expectOk(await fsOp(id, { op: "symlink", target: "t", path: "l" }));
    await expectOk(await fsOp(id, { op: "setxattr", path: "l", name: "user.target", value: btoa("1") }));
    await expectOk(
      await fsOp(id, { op: "setxattr", path: "l", name: "user.link", value: btoa("2"), follow: false }),
    );
    expect(await names(id, "t")).toEqual(["user.target"]);
    expect(await names(id, "l")).toEqual(["user.target"]);
    expect(await names(id, "l", false)).toEqual(["user.link"]);
    await expectOk(await fsOp(id, { op: "removexattr", path: "l", name: "user.link", follow: false }));
    expect(await names(id, "l", false)).toEqual([]);
  });

  it("a read-only token reads attributes but cannot write them", async () => {
    const id = await createComputer();
    await writeFile(id, "f", "x");
    await expectOk(await fsOp(id, { op: "setxattr", path: "f", name: "user.k", value: btoa("v") }));
    const ro = await mintToken(id, "ro");
    expect((await expectOk(await fsOp(id, { op: "listxattr", path: "f" }, ro))).names).toEqual(["user.k"]);
    expect((await expectOk(await fsOp(id, { op: "getxattr", path: "f", name: "user.k" }, ro))).value).toBe(
      btoa("v"),
    );
    await expectError(
      await fsOp(id, { op: "setxattr", path: "f", name: "user.k", value: "" }, ro),
      403,
      "EFORBIDDEN",
    );
    await expectError(
      await fsOp(id, { op: "removexattr", path: "f", name: "user.k" }, ro),
      403,
      "EFORBIDDEN",
    );
    expect(await names(id, "f")).toEqual(["user.k"]);
  });

  const long = `user.${"n".repeat(251)}`; // 256 bytes
  it.each([
    ["no name", { op: "setxattr", path: "f", value: "" }, 400, "EINVAL"],
    ["a name that is not a string", { op: "setxattr", path: "f", name: 5, value: "" }, 400, "EINVAL"],
    ["a name without namespace", { op: "setxattr", path: "f", name: "plain", value: "" }, 400, "EINVAL"],
    [
      "an empty name after the namespace",
      { op: "setxattr", path: "f", name: "user.", value: "" },
      400,
      "EINVAL",
    ],
    ["a name with NUL", { op: "setxattr", path: "f", name: "user.a\0b", value: "" }, 400, "EINVAL"],
    ["a name over 255 bytes", { op: "setxattr", path: "f", name: long, value: "" }, 400, "EINVAL"],
    ["a trusted.* name", { op: "setxattr", path: "f", name: "trusted.k", value: "" }, 400, "EINVAL"],
    [
      "a security.* name",
      { op: "setxattr", path: "f", name: "security.capability", value: "" },
      400,
      "EINVAL",
    ],
    ["removing a trusted.* name", { op: "removexattr", path: "f", name: "trusted.k" }, 400, "EINVAL"],
    ["no value", { op: "setxattr", path: "f", name: "user.k" }, 400, "EINVAL"],
    [
      "a value that is not base64",
      { op: "setxattr", path: "f", name: "user.k", value: "a b*" },
      400,
      "EINVAL",
    ],
    ["a value with bad padding", { op: "setxattr", path: "f", name: "user.k", value: "a===" }, 400, "EINVAL"],
    ["a value as bytes", { op: "setxattr", path: "f", name: "user.k", value: [1, 2] }, 400, "EINVAL"],
    [
      "a value over 64 KiB",
      { op: "setxattr", path: "f", name: "user.k", value: btoa("x".repeat(65537)) },
      400,
      "EINVAL",
    ],
    [
      "an unknown flag",
      { op: "setxattr", path: "f", name: "user.k", value: "", flag: "upsert" },
      400,
      "EINVAL",
    ],
    [
      "follow that is not a boolean",
      { op: "setxattr", path: "f", name: "user.k", value: "", follow: 1 },
      400,
      "EINVAL",
    ],
    ["a missing file", { op: "setxattr", path: "nope", name: "user.k", value: "" }, 404, "ENOENT"],
    ["a path through a file", { op: "setxattr", path: "f/x", name: "user.k", value: "" }, 409, "ENOTDIR"],
    ["a path with ..", { op: "setxattr", path: "../f", name: "user.k", value: "" }, 400, "EINVAL"],
    ["removing a missing attribute", { op: "removexattr", path: "f", name: "user.none" }, 404, "ENODATA"],
    ["getting with a bad name", { op: "getxattr", path: "f", name: "" }, 400, "EINVAL"],
    ["listing a missing file", { op: "listxattr", path: "nope" }, 404, "ENOENT"],
  ])("%s → %i %s, nothing changed", async (_label, body, status, code) => {
    const id = await createComputer();
    await writeFile(id, "f", "x");
    await expectOk(await fsOp(id, { op: "setxattr", path: "f", name: "user.keep", value: btoa("kept") }));
    const before = await snapshot(id);
    const stat = await expectOk(await fsOp(id, { op: "stat", path: "f" }));
    await expectError(await fsOp(id, body), status, code);
    expect(await snapshot(id)).toEqual(before);
    expect(await expectOk(await fsOp(id, { op: "stat", path: "f" }))).toEqual(stat);
    expect(await names(id, "f")).toEqual(["user.keep"]);
    expect((await expectOk(await fsOp(id, { op: "getxattr", path: "f", name: "user.keep" }))).value).toBe(
      btoa("kept"),
    );
  });
});
