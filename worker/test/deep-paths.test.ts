/**
 * Files deeper than any one request may name: the shell and js runtimes create and read them
 * (the vfs has no limit on a whole path, only on each name), the API finds them from an
 * ancestor and removes them with their top directory; a request naming such a path is
 * refused as too long (a request size limit, docs/API.md).
 */
import { describe, expect, it } from "vitest";
import { MAX_PATH_BYTES } from "../src/http/paths.ts";
import { api, createComputer, expectError, expectOk, fsOp } from "./helpers.ts";
import { runOk } from "./runtime-helpers.ts";

/** 60 directories of 250-byte names: 15,060 bytes, past MAX_PATH_BYTES. */
const DIRS = Array.from({ length: 60 }, (_, i) => `${String(i).padStart(2, "0")}${"d".repeat(248)}`);
const DEEP = DIRS.join("/");

const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

describe("files deeper than a request may name", () => {
  it("the shell writes one, js reads it, the API finds it and removes its top directory", async () => {
    expect(new TextEncoder().encode(`/${DEEP}`).byteLength).toBeGreaterThan(MAX_PATH_BYTES);
    const id = await createComputer();
    await runOk(id, "shell", `mkdir -p ${quote(DEEP)} && printf deep > ${quote(`${DEEP}/f.txt`)}`);
    const read = await runOk(
      id,
      "js",
      `import { readFile, readdir } from "node:fs/promises";
       export default async () => [await readFile(${JSON.stringify(`${DEEP}/f.txt`)}, "utf8"), await readdir(${JSON.stringify(DEEP)})];`,
    );
    expect(read.value).toEqual(["deep", ["f.txt"]]);
    await runOk(
      id,
      "js",
      `import { rename } from "node:fs/promises";
       export default async () => rename(${JSON.stringify(`${DEEP}/f.txt`)}, ${JSON.stringify(`${DEEP}/g.txt`)});`,
    );
    const shell = await runOk(id, "shell", `cat ${quote(`${DEEP}/g.txt`)}`);
    expect(shell.stdout).toBe("deep");

    const found = await expectOk(await fsOp(id, { op: "find", path: DIRS[0], glob: "**/*.txt" }));
    expect(found.paths).toEqual([`/${DEEP}/g.txt`]);
    await expectError(await api(`/v1/computers/${id}/files/${DEEP}`), 400, "ENAMETOOLONG");

    const removed = await api(`/v1/computers/${id}/files/${DIRS[0]}?recursive=1`, { method: "DELETE" });
    expect(removed.status).toBe(204);
    const root = (await expectOk(await api(`/v1/computers/${id}/files/`))) as { entries: unknown[] };
    expect(root.entries).toEqual([]);
  });
});
