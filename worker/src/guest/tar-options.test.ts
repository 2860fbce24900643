import { describe, expect, it } from "vitest";
import { parseTarArgs } from "./tar-options.ts";

const defaults = {
  file: "-",
  gzip: false,
  verbose: false,
  directory: undefined,
  stripComponents: 0,
  operands: [],
};

describe("tar's command line", () => {
  it("bundled short options, the value of -f from the cluster's rest or the next argument", () => {
    expect(parseTarArgs(["-czf", "out.tgz", "src", "a.txt"])).toEqual({
      ok: true,
      options: { ...defaults, mode: "create", file: "out.tgz", gzip: true, operands: ["src", "a.txt"] },
    });
    expect(parseTarArgs(["-xfout.tar", "-C", "dest", "-v"])).toEqual({
      ok: true,
      options: { ...defaults, mode: "extract", file: "out.tar", directory: "dest", verbose: true },
    });
  });

  it("the old style without a dash, first argument only", () => {
    expect(parseTarArgs(["tvf", "a.tar", "docs"])).toEqual({
      ok: true,
      options: { ...defaults, mode: "list", file: "a.tar", verbose: true, operands: ["docs"] },
    });
    // Later arguments are operands even when they look like options of the old style.
    expect(parseTarArgs(["-c", "x", "cf"])).toMatchObject({ ok: true, options: { operands: ["x", "cf"] } });
  });

  it("long options, with = or a separate value; -- ends the options", () => {
    expect(
      parseTarArgs([
        "--extract",
        "--gzip",
        "--file=a.tgz",
        "--directory",
        "d",
        "--strip-components=1",
        "--",
        "-odd",
      ]),
    ).toEqual({
      ok: true,
      options: {
        ...defaults,
        mode: "extract",
        file: "a.tgz",
        gzip: true,
        directory: "d",
        stripComponents: 1,
        operands: ["-odd"],
      },
    });
    expect(parseTarArgs(["--help"])).toEqual({ ok: "help" });
  });

  it("bad command lines: GNU tar's messages", () => {
    expect(parseTarArgs(["-f", "a.tar"])).toEqual({
      ok: false,
      error: "You must specify one of the '-ctx' options",
    });
    expect(parseTarArgs(["-cx", "a"])).toEqual({
      ok: false,
      error: "You may not specify more than one '-ctx' option",
    });
    expect(parseTarArgs(["-cf", "a.tar"])).toEqual({
      ok: false,
      error: "Cowardly refusing to create an empty archive",
    });
    expect(parseTarArgs(["-xq"])).toEqual({ ok: false, error: "invalid option -- 'q'" });
    expect(parseTarArgs(["-x", "-f"])).toEqual({ ok: false, error: "option requires an argument -- 'f'" });
    expect(parseTarArgs(["--bogus"])).toEqual({ ok: false, error: "unrecognized option '--bogus'" });
    expect(parseTarArgs(["-x", "--strip-components=x"])).toEqual({
      ok: false,
      error: "x: Invalid number of elements",
    });
  });
});
