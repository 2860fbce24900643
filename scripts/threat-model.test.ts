/**
 * docs/THREAT_MODEL.md holds each statement to a test: every table row cites at least one
 * `` `file` › "test name" ``, and each cited file exists and still contains that name.
 */
import { existsSync, readFileSync } from "node:fs";
import { REPO_ROOT } from "@computer/fleet/wrangler-dev";
import { describe, expect, it } from "vitest";

const doc = readFileSync(`${REPO_ROOT}/docs/THREAT_MODEL.md`, "utf8");
const CITATION = /`([^`]+\.test\.ts)` › "([^"]+)"/g;

/** Table rows of the doc that state something (not headers or separators). */
const rows = doc
  .split("\n")
  .filter((line) => line.startsWith("| ") && !line.startsWith("| statement") && !line.startsWith("|---"));

describe("docs/THREAT_MODEL.md", () => {
  it("has statements", () => {
    expect(rows.length).toBeGreaterThan(10);
  });

  it.each(rows.map((row) => [row.slice(2, 70), row]))("%s… cites tests that exist", (_title, row) => {
    const citations = [...row.matchAll(CITATION)];
    expect(citations.length, row).toBeGreaterThan(0);
    for (const [, file = "", name = ""] of citations) {
      expect(existsSync(`${REPO_ROOT}/${file}`), file).toBe(true);
      expect(readFileSync(`${REPO_ROOT}/${file}`, "utf8"), `${file} › ${name}`).toContain(name);
    }
  });
});
