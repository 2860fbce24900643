import { describe, expect, it } from "vitest";
import { parseTransferBenchOptions } from "./options.ts";

describe("transfer-bench options", () => {
  it("defaults to 100 and 400 MiB, three repetitions, the container rows", () => {
    expect(parseTransferBenchOptions([], "/out")).toEqual({
      sizesMiB: [100, 400],
      containerMiB: 100,
      reps: 3,
      noContainer: false,
      outDir: "/out",
    });
  });

  it("--quick is one repetition of 100 MiB; explicit values win", () => {
    expect(parseTransferBenchOptions(["--quick"], "/out")).toMatchObject({ sizesMiB: [100], reps: 1 });
    expect(parseTransferBenchOptions(["--quick", "--reps", "2", "--sizes", "8,16"], "/o")).toMatchObject({
      sizesMiB: [8, 16],
      reps: 2,
    });
  });

  it("--help answers undefined; unknown options and bad numbers throw", () => {
    expect(parseTransferBenchOptions(["--help"], "/out")).toBeUndefined();
    expect(() => parseTransferBenchOptions(["--bogus"], "/out")).toThrow();
    expect(() => parseTransferBenchOptions(["--sizes", "0"], "/out")).toThrow(/--sizes/);
    expect(() => parseTransferBenchOptions(["--reps", "x"], "/out")).toThrow(/--reps/);
  });
});
