/** Unit tests of artifact names, versions, default names and content types. */
import { describe, expect, it } from "vitest";
import { contentTypeFor } from "./content-type.ts";
import { checkArtifactName, checkArtifactVersion, defaultArtifactName } from "./names.ts";

describe("artifact names", () => {
  it("accepts lower-case names and common version forms", () => {
    for (const name of ["site", "a", "my-app.v2", "x_y", "0"]) expect(checkArtifactName(name)).toBe(name);
    for (const v of ["1", "1.2.3", "1.0.0-rc.1+build.5", "2024-05-01", "V2"])
      expect(checkArtifactVersion(v)).toBe(v);
  });

  it("refuses what would break keys or URLs", () => {
    for (const name of ["", "Site", "-a", ".a", "a/b", "a@b", "a b", "a%2f", "x".repeat(65)]) {
      expect(() => checkArtifactName(name), name).toThrow(/invalid artifact name/);
    }
    for (const v of ["", ".1", "1/2", "1@2", "1 2", "v".repeat(65)]) {
      expect(() => checkArtifactVersion(v), v).toThrow(/invalid artifact version/);
    }
  });

  it("derives a name from the path's last segment", () => {
    expect(defaultArtifactName("/out/Report Final.PDF")).toBe("report-final.pdf");
    expect(defaultArtifactName("/dist")).toBe("dist");
    expect(defaultArtifactName("/a/_build")).toBe("build");
    expect(() => defaultArtifactName("/")).toThrow(/pass 'name'/);
    expect(() => defaultArtifactName("/~~~")).toThrow(/pass 'name'/);
  });

  it("content types by extension", () => {
    expect(contentTypeFor("index.HTML")).toBe("text/html; charset=utf-8");
    expect(contentTypeFor("a/b.tar.gz")).toBe("application/gzip");
    expect(contentTypeFor("img.svg")).toBe("image/svg+xml; charset=utf-8");
    expect(contentTypeFor(".bashrc")).toBe("application/octet-stream");
    expect(contentTypeFor("Makefile")).toBe("application/octet-stream");
  });
});
