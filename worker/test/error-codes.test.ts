/**
 * Every error code has the status docs/API.md's table gives it, and every code the vfs raises
 * leaves the API with its own name and that status: none falls through to 500.
 */
import { FS_ERROR_CODES, FsError } from "@computer/vfs";
import { describe, expect, it } from "vitest";
import apiDoc from "../../docs/API.md?raw";
import { type ApiErrorCode, HTTP_STATUS, toErrorResponse } from "../src/http/errors.ts";

/** The code → status rows of the "## Errors" table of docs/API.md. */
function documentedStatuses(markdown: string): Map<string, number> {
  const section = markdown.slice(markdown.indexOf("## Errors"));
  const table = new Map<string, number>();
  for (const line of section.split("\n")) {
    const row = /^\| (.+) \| (\d{3})\b.*\|$/.exec(line);
    if (row === null) continue;
    for (const code of (row[1] ?? "").matchAll(/`(E[A-Z]+)`/g)) table.set(code[1] ?? "", Number(row[2]));
  }
  return table;
}

const documented = documentedStatuses(apiDoc);
const codes = Object.keys(HTTP_STATUS) as ApiErrorCode[];

describe("error codes", () => {
  it("docs/API.md lists exactly the codes the API can answer", () => {
    expect([...documented.keys()].sort()).toEqual([...codes].sort());
  });

  it.each(codes)("%s has the documented status", (code) => {
    expect(HTTP_STATUS[code]).toBe(documented.get(code));
  });

  it.each(FS_ERROR_CODES)("a vfs %s keeps its code and is not a 500", async (code) => {
    expect(HTTP_STATUS[code]).not.toBe(500);
    expect(HTTP_STATUS[code]).toBeLessThan(600);
    // As thrown in the DO, and as it arrives after an RPC hop (a plain object with its properties).
    const thrown = new FsError(code, "open", "/a/b");
    const crossed = { ...thrown, code, message: thrown.message, path: "/a/b" };
    for (const err of [thrown, crossed]) {
      const res = toErrorResponse(err);
      expect(res.status).toBe(documented.get(code));
      expect(await res.json()).toEqual({ error: { code, message: thrown.message, path: "/a/b" } });
    }
  });
});
