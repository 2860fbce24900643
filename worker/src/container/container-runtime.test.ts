/** The cwd a container exec sends computerd is relative to the workspace. */
import { describe, expect, it } from "vitest";
import { workspaceRelative } from "./container-runtime.ts";

describe("workspaceRelative", () => {
  it.each([
    ["/workspace", "."],
    ["/workspace/src", "src"],
    ["/workspace/src/app", "src/app"],
    ["/workspacesuffix", "/workspacesuffix"],
  ])("%s → %s", (cwd, relative) => {
    expect(workspaceRelative(cwd)).toBe(relative);
  });
});
