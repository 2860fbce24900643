/**
 * The container runtime end to end, as `make dev` runs it: the local Worker (its deploy bundle under Miniflare's workerd) + real
 * `computerd host` (one `computerd serve` per computer, FUSE mount, bubblewrap over the image's
 * root filesystem as root of the computer's user namespace), driven only through the HTTP API
 * with the container-runtime contract (./container-contract.ts, userland included). Here too:
 * npm, root changing the system (dpkg into the throwaway layer, kept while the container runs),
 * and apt-get failing only for lack of network while egress is none. Needs root, /dev/fuse and
 * bwrap (the CI machine has them). The same contract runs against the computerd image in
 * images/test/image.test.ts.
 */
import { startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import { describeContainerContract, expectCompleted } from "@computer/fleet/container-contract";
import { expect, it } from "vitest";

/** A package built and installed offline: dpkg works as root in the throwaway layer. */
const LOCAL_DEB = [
  "mkdir -p /tmp/hello-deb/DEBIAN /tmp/hello-deb/usr/local/bin",
  "printf '#!/bin/sh\\necho hello from a package\\n' > /tmp/hello-deb/usr/local/bin/hello-pkg",
  "chmod 755 /tmp/hello-deb/usr/local/bin/hello-pkg",
  "printf 'Package: hello-pkg\\nVersion: 1.0\\nArchitecture: all\\nMaintainer: e2e <e2e@localhost>\\nDescription: e2e\\n' > /tmp/hello-deb/DEBIAN/control",
  "dpkg-deb --build /tmp/hello-deb /tmp/hello-pkg.deb >/dev/null",
  "dpkg -i /tmp/hello-pkg.deb >/dev/null",
].join(" && ");

const containerCapable = canRun("the container-runtime contract on computerd host", containerMissing());

describeContainerContract("container runtime (local Worker + computerd host + FUSE + bwrap)", {
  start: () => startFleet({ computerdHost: true }),
  computerId: "e2e-container",
  skip: !containerCapable,
  more: (client) => {
    it("npm runs, and root installs a package into the system (kept for the next command)", async () => {
      const installed = await client.exec(`npm --version && ${LOCAL_DEB} && echo installed`);
      expectCompleted(installed);
      expect(installed.stdout).toMatch(/^\d+\.\d+\.\d+\ninstalled\n$/);
      const next = await client.exec("hello-pkg && dpkg-query -W -f='${Status}\\n' hello-pkg");
      expectCompleted(next);
      expect(next.stdout).toBe("hello from a package\ninstall ok installed\n");
    }, 180_000);

    it("apt-get fails only for lack of network while egress is none", async () => {
      const result = await client.exec("apt-get update 2>&1; echo status=$?");
      expectCompleted(result);
      expect(result.stdout).toMatch(/Temporary failure resolving|Could not resolve|Network is unreachable/);
      expect(result.stdout).not.toMatch(/Permission denied|are you root|Could not open lock/);
    }, 180_000);
  },
});
