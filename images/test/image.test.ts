/**
 * The computerd image end to end: the local Worker launches each computer's
 * container from the IMAGE (`docker run --device /dev/fuse --cap-add SYS_ADMIN`, host network)
 * through the docker host, which speaks `computerd host`'s API, and the container-runtime
 * contract runs against it (its userland included: root, the toolbox, pandoc → PDF); then what
 * the image itself promises: FUSE at /workspace, Node 24 with npm, git, and no secret in a
 * command's environment.
 * Needs a docker engine and the image: `make image` first (IMAGE overrides the reference).
 */
import { readFileSync } from "node:fs";
import {
  type ContractClient,
  describeContainerContract,
  expectCompleted,
} from "@computer/fleet/container-contract";
import { expect, it } from "vitest";
import { startDockerFleet } from "./docker-fleet.ts";

/** The image's Node and npm: the root package.json's exact devDependencies. */
const PINNED = (
  JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    devDependencies: { node: string; npm: string };
  }
).devDependencies;

function imageTests(client: ContractClient): void {
  it("runs computerd as the image's entrypoint with the computer FUSE-mounted at /workspace", async () => {
    const result = await client.exec("pwd; grep ' /workspace ' /proc/mounts | cut -d' ' -f3; node --version");
    expectCompleted(result);
    const [cwd, fsType, node] = result.stdout.trim().split("\n");
    expect(cwd).toBe("/workspace");
    expect(fsType).toBe("fuse.computerd");
    expect(node).toBe(`v${PINNED.node}`);
  }, 120_000);

  it("has npm and npx, the version the root package.json pins (make dev's root filesystem has the same)", async () => {
    const result = await client.exec("npm --version && npx --version && command -v npm && command -v npx");
    expectCompleted(result);
    expect(result.stdout.trim().split("\n")).toEqual([
      PINNED.npm,
      PINNED.npm,
      "/usr/local/bin/npm",
      "/usr/local/bin/npx",
    ]);
  }, 120_000);

  it("serves the mount with computerd's libfuse3 addon (nanosecond times)", async () => {
    const result = await client.exec(
      "touch -d '2001-02-03 04:05:06.123456789 UTC' ns && TZ=UTC stat -c %y ns",
    );
    expectCompleted(result);
    expect(result.stdout.trim()).toBe("2001-02-03 04:05:06.123456789 +0000");
  }, 120_000);

  it("commits with git inside the mount", async () => {
    const result = await client.exec(
      "mkdir -p repo && cd repo && git init -q && echo hi > a.txt && git add a.txt && " +
        "git -c user.name=t -c user.email=t@example.com commit -qm first && git log --format=%s",
    );
    expectCompleted(result);
    expect(result.stdout.trim()).toBe("first");
  }, 120_000);

  it("keeps the daemon's secret out of a command's environment", async () => {
    const result = await client.exec("env | grep -c COMPUTERD_SECRET || true");
    expectCompleted(result);
    expect(result.stdout.trim()).toBe("0");
  }, 60_000);
}

describeContainerContract("container runtime on the computerd image (local Worker + docker host)", {
  start: startDockerFleet,
  computerId: "image-contract",
  manyFiles: Number(process.env.IMAGE_TEST_FILES ?? 10_000),
  more: imageTests,
});
