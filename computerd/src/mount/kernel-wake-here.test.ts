import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { turnOnWakeHere } from "./kernel-wake-here.ts";

describe("turnOnWakeHere", () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), "wake-here-"));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("turns the parameter on when it is off", async () => {
    const parameter = join(dir, "wake_here");
    await writeFile(parameter, "N\n");
    expect(await turnOnWakeHere(parameter)).toBe("turned on");
    expect(await readFile(parameter, "utf8")).toBe("Y");
  });

  it("leaves a parameter that is on alone", async () => {
    const parameter = join(dir, "wake_here");
    await writeFile(parameter, "Y\n");
    expect(await turnOnWakeHere(parameter)).toBe("on");
    expect(await readFile(parameter, "utf8")).toBe("Y\n");
  });

  it("says absent where the kernel has no such parameter", async () => {
    expect(await turnOnWakeHere(join(dir, "missing"))).toBe("absent");
  });

  it("reports a refused write without throwing", async () => {
    // A read-only sysfs attribute: opening it for writing fails (EACCES) even for root.
    const readOnly = "/sys/kernel/uevent_seqnum";
    expect(await turnOnWakeHere(readOnly)).toBe("refused: EACCES");
    expect(await turnOnWakeHere(dir)).toBe("refused: EISDIR");
  });
});
