/**
 * Hostile paths and refused mutations: every bad input is answered with its error code and
 * leaves the computer exactly as it was (snapshot before == snapshot after).
 */
import { beforeEach, describe, expect, it } from "vitest";
import {
  api,
  createComputer,
  expectError,
  fsOp,
  mintToken,
  readText,
  snapshot,
  writeFile,
} from "./helpers.ts";

let id: string;
let before: Record<string, string>;

beforeEach(async () => {
  id = await createComputer();
  await writeFile(id, "dir/a.txt", "alpha");
  await writeFile(id, "dir/sub/b.txt", "beta");
  await writeFile(id, "top.txt", "top");
  before = await snapshot(id);
});

async function unchanged(): Promise<void> {
  expect(await snapshot(id)).toEqual(before);
}

const long = (n: number) => "n".repeat(n);

describe("URL paths", () => {
  const bad: [string, number, string][] = [
    ["dir//a.txt", 400, "EINVAL"],
    ["%2e%2e%2ftop.txt", 400, "EINVAL"],
    ["dir%2fa.txt", 400, "EINVAL"],
    ["dir%2Fsub%2Fb.txt", 400, "EINVAL"],
    ["..%2f..%2fother", 400, "EINVAL"],
    ["a%00b", 400, "EINVAL"],
    ["dir/%00", 400, "EINVAL"],
    ["a%5cb", 400, "EINVAL"],
    ["dir%5C..%5Ctop.txt", 400, "EINVAL"],
    ["bad%zzescape", 400, "EINVAL"],
    ["bad%C3", 400, "EINVAL"],
    [long(256), 400, "ENAMETOOLONG"],
    ["%C3%A9".repeat(128), 400, "ENAMETOOLONG"],
    [Array.from({ length: 50 }, () => long(250)).join("/"), 400, "ENAMETOOLONG"],
  ];

  it.each(bad)("PUT %s → %i %s, nothing written", async (path, status, code) => {
    await expectError(
      await api(`/v1/computers/${id}/files/${path}`, { method: "PUT", body: "evil" }),
      status,
      code,
    );
    await unchanged();
  });

  it.each(bad)("DELETE %s?recursive=1 → %i %s, nothing removed", async (path, status, code) => {
    await expectError(
      await api(`/v1/computers/${id}/files/${path}?recursive=1`, { method: "DELETE" }),
      status,
      code,
    );
    await unchanged();
  });

  it.each(bad)("GET %s → %i %s", async (path, status, code) => {
    await expectError(await api(`/v1/computers/${id}/files/${path}`), status, code);
    await unchanged();
  });

  it("accepts a 255-byte name and a path of 10,000 bytes: a request limit, not a depth limit", async () => {
    await writeFile(id, long(255), "ok");
    const deep = Array.from({ length: 40 }, () => long(250)).join("/");
    expect(new TextEncoder().encode(`/${deep}`).byteLength).toBeGreaterThan(10_000);
    await writeFile(id, deep, "deep");
    expect(await readText(id, deep)).toBe("deep");
  });

  it("dot segments are resolved by the URL parser before routing and cannot leave the computer", async () => {
    const other = await createComputer();
    await writeFile(other, "secret.txt", "secret");
    const token = await mintToken(id, "rw");
    // The WHATWG URL parser turns these into /v1/computers/<other>/files/secret.txt:
    for (const path of [`../../${other}/files/secret.txt`, `%2e%2e/%2E%2E/${other}/files/secret.txt`]) {
      const res = await api(`/v1/computers/${id}/files/${path}`, { token });
      await expectError(res, 403, "EFORBIDDEN");
    }
    // ... and this one into /v1/computers/<id>/top.txt, which is no route.
    await expectError(
      await api(`/v1/computers/${id}/files/../top.txt`, { method: "PUT", body: "x", token }),
      404,
      "ENOENT",
    );
    await unchanged();
  });

  it.each(["abc", "999", "0o8", "-1", "77777", ""])("PUT ?mode=%s → 400, nothing written", async (mode) => {
    await expectError(
      await api(`/v1/computers/${id}/files/new.txt?mode=${mode}`, { method: "PUT", body: "x" }),
      400,
      "EINVAL",
    );
    await unchanged();
  });

  it.each(["2", "yes"])("DELETE ?recursive=%s → 400, nothing removed", async (value) => {
    await expectError(
      await api(`/v1/computers/${id}/files/dir?recursive=${value}`, { method: "DELETE" }),
      400,
      "EINVAL",
    );
    await unchanged();
  });
});

describe("JSON body paths (POST /fs)", () => {
  const badPaths: [string, string][] = [
    ["..", "EINVAL"],
    ["../x", "EINVAL"],
    ["dir/../top.txt", "EINVAL"],
    ["./dir", "EINVAL"],
    ["dir/.", "EINVAL"],
    ["dir//a.txt", "EINVAL"],
    ["//dir", "EINVAL"],
    ["dir\\a.txt", "EINVAL"],
    ["dir/a\u0000", "EINVAL"],
    [long(256), "ENAMETOOLONG"],
    [Array.from({ length: 50 }, () => long(250)).join("/"), "ENAMETOOLONG"],
  ];

  it.each(badPaths)("mkdir %j → 400 %s", async (path, code) => {
    await expectError(await fsOp(id, { op: "mkdir", path, recursive: true }), 400, code);
    await unchanged();
  });

  it.each(badPaths)("rename to %j → 400 %s", async (to, code) => {
    await expectError(await fsOp(id, { op: "rename", from: "top.txt", to }), 400, code);
    await unchanged();
  });

  it.each(badPaths)("rm %j → 400 %s", async (path, code) => {
    await expectError(await fsOp(id, { op: "rm", path, recursive: true }), 400, code);
    await unchanged();
  });

  it("refuses to rm the root", async () => {
    await expectError(await fsOp(id, { op: "rm", path: "/", recursive: true }), 400, "EINVAL");
    await unchanged();
  });

  it.each([
    ["missing op", {}],
    ["unknown op", { op: "format" }],
    ["op not a string", { op: 1 }],
    ["prototype key", { op: "constructor", path: "x" }],
    ["path not a string", { op: "mkdir", path: 1 }],
    ["missing path", { op: "mkdir" }],
    ["recursive not a boolean", { op: "mkdir", path: "x", recursive: "yes" }],
    ["bad mode", { op: "chmod", path: "top.txt", mode: "rwx" }],
    ["mode too big", { op: "chmod", path: "top.txt", mode: 0o17777 }],
    ["negative truncate", { op: "truncate", path: "top.txt", length: -1 }],
    ["empty symlink target", { op: "symlink", target: "", path: "l" }],
    ["bad regex", { op: "grep", path: "/", pattern: "(", regex: true }],
    ["bad utimes", { op: "utimes", path: "top.txt", mtime: "yesterday" }],
  ])("%s → 400 EINVAL", async (_, op) => {
    await expectError(await fsOp(id, op), 400, "EINVAL");
    await unchanged();
  });

  it.each(["{", "{'op':'mkdir'}", "[]", "null", "42", '"mkdir"'])(
    "malformed JSON %s → 400 EINVAL",
    async (text) => {
      await expectError(
        await api(`/v1/computers/${id}/fs`, {
          method: "POST",
          body: text,
          headers: { "Content-Type": "application/json" },
        }),
        400,
        "EINVAL",
      );
      await unchanged();
    },
  );

  it("an over-large JSON body → 413 EFBIG", async () => {
    const huge = JSON.stringify({ op: "mkdir", path: "x", pad: "p".repeat(1024 * 1024) });
    await expectError(await api(`/v1/computers/${id}/fs`, { method: "POST", body: huge }), 413, "EFBIG");
    await unchanged();
  });
});

describe("refused mutations change nothing", () => {
  it("renaming a directory into itself → 400 EINVAL", async () => {
    await expectError(await fsOp(id, { op: "rename", from: "dir", to: "dir/sub/dir" }), 400, "EINVAL");
    await expectError(await fsOp(id, { op: "rename", from: "dir", to: "dir/inner" }), 400, "EINVAL");
    await unchanged();
  });

  it.each([
    ["mkdir over a file", { op: "mkdir", path: "top.txt" }, 409, "EEXIST"],
    ["mkdir without parents", { op: "mkdir", path: "no/such/dir" }, 404, "ENOENT"],
    ["rename a missing path", { op: "rename", from: "missing", to: "x" }, 404, "ENOENT"],
    ["rename a dir over a file", { op: "rename", from: "dir", to: "top.txt" }, 409, "ENOTDIR"],
    ["rm a non-empty dir", { op: "rm", path: "dir" }, 409, "EISDIR"],
    ["symlink over a file", { op: "symlink", target: "x", path: "top.txt" }, 409, "EEXIST"],
    ["truncate a dir", { op: "truncate", path: "dir", length: 0 }, 409, "EISDIR"],
    ["readlink a file", { op: "readlink", path: "top.txt" }, 400, "EINVAL"],
  ])("%s → %i %s", async (_, op, status, code) => {
    await expectError(await fsOp(id, op), status, code);
    await unchanged();
  });

  it("symlinks cannot reach outside the workspace", async () => {
    await fsOp(id, { op: "symlink", target: "/etc/passwd", path: "abs" });
    await fsOp(id, { op: "symlink", target: "../../../../etc/passwd", path: "rel" });
    await expectError(await api(`/v1/computers/${id}/files/abs`), 404, "ENOENT");
    await expectError(await api(`/v1/computers/${id}/files/rel`), 404, "ENOENT");
    await fsOp(id, { op: "symlink", target: "../../../top.txt", path: "dir/up" });
    expect(await readText(id, "dir/up")).toBe("top");
  });
});
