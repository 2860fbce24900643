/** POST /fs `rename` with `"exchange": true`: atomic swaps of two names, and every refusal changing nothing. */
import { describe, expect, it } from "vitest";
import {
  api,
  createComputer,
  expectError,
  expectOk,
  fsOp,
  mintToken,
  readText,
  snapshot,
  writeFile,
} from "./helpers.ts";

async function names(id: string, dir: string): Promise<string[]> {
  const res = await api(`/v1/computers/${id}/files/${dir}`);
  expect(res.status).toBe(200);
  const { entries } = (await res.json()) as { entries: { name: string; type: string }[] };
  return entries.map((e) => `${e.name}:${e.type}`).sort();
}

describe("rename exchange", () => {
  it("swaps two files, answering the stat of what was at `from`, now at `to`", async () => {
    const id = await createComputer();
    await writeFile(id, "a.txt", "alpha");
    await writeFile(id, "b.txt", "beta!!");
    const ino = (await expectOk(await fsOp(id, { op: "stat", path: "a.txt" }))).ino;
    const res = await expectOk(await fsOp(id, { op: "rename", from: "a.txt", to: "b.txt", exchange: true }));
    expect(res).toMatchObject({ from: "/a.txt", path: "/b.txt", type: "file", size: 5, ino });
    expect(await readText(id, "a.txt")).toBe("beta!!");
    expect(await readText(id, "b.txt")).toBe("alpha");
  });

  it("swaps a directory with its subtree and a file in another directory", async () => {
    const id = await createComputer();
    await writeFile(id, "p/dir/sub/f", "deep");
    await writeFile(id, "q/file", "flat");
    await expectOk(await fsOp(id, { op: "rename", from: "p/dir", to: "/q/file", exchange: true }));
    expect(await readText(id, "q/file/sub/f")).toBe("deep");
    expect(await readText(id, "p/dir")).toBe("flat");
    expect(await names(id, "p")).toEqual(["dir:file"]);
    expect(await names(id, "q")).toEqual(["file:dir"]);
    expect(await expectOk(await fsOp(id, { op: "stat", path: "q" }))).toMatchObject({ nlink: 3 });
    expect(await expectOk(await fsOp(id, { op: "stat", path: "p" }))).toMatchObject({ nlink: 2 });
  });

  it("without exchange, rename still replaces", async () => {
    const id = await createComputer();
    await writeFile(id, "a", "A");
    await writeFile(id, "b", "B");
    await expectOk(await fsOp(id, { op: "rename", from: "a", to: "b", exchange: false }));
    expect(await readText(id, "b")).toBe("A");
    expect((await api(`/v1/computers/${id}/files/a`)).status).toBe(404);
  });

  it("refuses a missing name, a swap into its own subtree, a non-boolean flag and a read-only token", async () => {
    const id = await createComputer();
    await writeFile(id, "d/sub/f", "x");
    await writeFile(id, "e", "e");
    const before = await snapshot(id);
    const exchange = (from: string, to: string, flag: unknown = true, token?: string) =>
      fsOp(id, { op: "rename", from, to, exchange: flag }, token);
    await expectError(await exchange("e", "missing"), 404, "ENOENT");
    await expectError(await exchange("missing", "e"), 404, "ENOENT");
    await expectError(await exchange("d", "d/sub"), 400, "EINVAL");
    await expectError(await exchange("d/sub/f", "d"), 400, "EINVAL");
    await expectError(await exchange("e", "d", "yes"), 400, "EINVAL");
    await expectError(await exchange("e", "d", true, await mintToken(id, "ro")), 403, "EFORBIDDEN");
    expect(await snapshot(id)).toEqual(before);
  });
});
