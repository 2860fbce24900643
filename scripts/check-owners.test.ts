import { describe, expect, it } from "vitest";
import { checkOwners, OWNED_PIECES } from "./check-owners.ts";

describe("checkOwners", () => {
  it("reports a second computer-id pattern, status table, limit or fitUtf8 with its owner", () => {
    const text = [
      "const ID = /^[a-z0-9][a-z0-9-]{0,62}$/;",
      "const STATUS = { EUNAUTHORIZED: 401 };",
      "const NAME_MAX = 255;",
      "export function fitUtf8(text: string, budget: number) {}",
    ].join("\n");
    expect(checkOwners("images/src/x.ts", text)).toEqual([
      {
        path: "images/src/x.ts",
        line: 1,
        problem:
          "a second definition of the computer-id pattern: import it from sdk/src/contract/computer-id.ts",
      },
      {
        path: "images/src/x.ts",
        line: 2,
        problem:
          "a second definition of the error → HTTP status table: import it from sdk/src/contract/errors.ts",
      },
      {
        path: "images/src/x.ts",
        line: 3,
        problem:
          "a second definition of the filesystem's name and path limits: import it from vfs/src/limits.ts",
      },
      {
        path: "images/src/x.ts",
        line: 4,
        problem:
          "a second definition of cutting text to a UTF-8 byte budget (fitUtf8): import it from worker/src/exec/output-cap.ts",
      },
    ]);
  });

  it("sees the pattern with \\d classes and a length held against the limit's number", () => {
    const text = [
      "const ID = /^[a-z\\d][a-z\\d-]{0,62}$/;",
      "if (new TextEncoder().encode(cwd).byteLength > 4096) throw err;",
      "if (byteLength(name) >= 255) throw err;",
    ].join("\n");
    expect(checkOwners("worker/src/x.ts", text).map((o) => [o.line, o.problem.split(":")[0]])).toEqual([
      [1, "a second definition of the computer-id pattern"],
      [2, "a second definition of the filesystem's name and path limits"],
      [3, "a second definition of the filesystem's name and path limits"],
    ]);
  });

  it("accepts each owner's own definition, uses of the pieces, and tests that restate them", () => {
    expect(checkOwners("vfs/src/limits.ts", "export const NAME_MAX = 255;")).toEqual([]);
    expect(checkOwners("sdk/src/contract/errors.ts", "  EUNAUTHORIZED: 401,")).toEqual([]);
    expect(OWNED_PIECES.map((piece) => piece.owner)).toContain("sdk/src/contract/computer-id.ts");
    expect(
      checkOwners("worker/src/x.ts", 'import { NAME_MAX } from "@computer/vfs";\nif (n > NAME_MAX) {}'),
    ).toEqual([]);
    expect(
      checkOwners("worker/test/x.test.ts", "expect(HTTP_STATUS).toEqual({ EUNAUTHORIZED: 401 });"),
    ).toEqual([]);
  });
});
