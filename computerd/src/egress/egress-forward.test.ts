/**
 * A bubblewrap sandbox (egress none: loopback only) with the egress proxy bound in: curl,
 * going by HTTPS_PROXY, reaches the allowed server on the host's 127.0.0.1 and gets a 403
 * for another; without the proxy it reaches nothing.
 */
import { execFile } from "node:child_process";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { bubblewrapWrapper } from "../exec/bwrap.ts";
import { type EgressFixture, startEgressFixture } from "./egress-fixture.ts";
import { withEgressProxy } from "./egress-forward.ts";

let fixture: EgressFixture;

/** Runs `command` in the sandbox (async spawn: the servers answer from this process). */
function run(command: string): Promise<string> {
  const sandbox = bubblewrapWrapper({ workspace: join(fixture.dir, "workspace"), egress: "none" });
  const plan = withEgressProxy(
    sandbox,
    fixture.socketPath,
  )({
    command,
    cwd: "/workspace",
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
  });
  const [file, ...args] = plan.argv;
  return new Promise((resolve, reject) => {
    const options = { env: plan.env, uid: plan.uid, gid: plan.gid, timeout: 60_000 };
    execFile(file, args, options, (error, stdout, stderr) =>
      error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

beforeAll(async () => {
  fixture = await startEgressFixture("egress-forward-");
  const workspace = join(fixture.dir, "workspace");
  mkdirSync(workspace);
  chmodSync(workspace, 0o777);
});

afterAll(() => fixture.close());

describe("egress forwarder in bubblewrap", () => {
  test("the allowed host is reached through the proxy, another is a 403, nothing directly", async () => {
    const out = await run(
      [
        `curl -sS --max-time 20 http://127.0.0.1:${fixture.allowedPort}/; echo`,
        `curl -sS --max-time 20 -o /dev/null -w 'other=%{http_code}\\n' http://127.0.0.1:${fixture.otherPort}/`,
        `curl -sS --max-time 5 --noproxy '*' http://127.0.0.1:${fixture.allowedPort}/ >/dev/null 2>&1 && echo direct=reached || echo direct=refused`,
      ].join("\n"),
    );
    expect(out).toBe("allowed GET /\nother=403\ndirect=refused\n");
  });
});
