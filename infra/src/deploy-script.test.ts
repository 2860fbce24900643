/**
 * The deploy scripts run for real under bash with a stand-in wrangler that records its
 * arguments, the config and the secrets file it was given: the config arrives verbatim, the
 * admin token only through the environment.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { deleteWorkerScript, deployScript, r2PutScript, shellQuote, workersDevUrl } from "./deploy-script.ts";

const dir = mkdtempSync(join(tmpdir(), "infra-deploy-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Records argv, and for deploy the files --config and --secrets-file name, as JSON.
const fakeWrangler = join(dir, "wrangler");
writeFileSync(
  fakeWrangler,
  `#!/usr/bin/env bash
out="$FAKE_OUT"
printf '%s\\n' "$@" > "$out.args"
while [ $# -gt 0 ]; do
  case "$1" in
    --config) cp "$2" "$out.config"; shift ;;
    --secrets-file) cp "$2" "$out.secrets" ;;
  esac
  shift
done
cat > "$out.stdin"
`,
);
chmodSync(fakeWrangler, 0o755);

function run(script: string, env: Record<string, string>): void {
  execFileSync("bash", ["-c", script], { env: { PATH: process.env.PATH ?? "", ...env }, input: "report" });
}

describe("shellQuote", () => {
  it("leaves plain words alone and quotes everything else as one word", () => {
    expect(shellQuote("/a/b-c.d")).toBe("/a/b-c.d");
    expect(shellQuote("a b")).toBe("'a b'");
    expect(shellQuote("it's $HOME")).toBe(`'it'"'"'s $HOME'`);
    const echoed = execFileSync("bash", ["-c", `printf '%s' ${shellQuote("it's $HOME `x`")}`]).toString();
    expect(echoed).toBe("it's $HOME `x`");
  });
});

describe("deployScript", () => {
  it("writes the config verbatim and passes the admin token by name only", () => {
    const config = JSON.stringify({ name: "fleet", vars: { quote: 'it\'s "here" $HOME' } }, null, 2);
    const out = join(dir, "deploy");
    const script = deployScript({ wrangler: [fakeWrangler], dir: join(dir, "state dir"), config }, [
      "--dry-run",
    ]);
    expect(script).not.toContain("s3cret");
    run(script, { FAKE_OUT: out, COMPUTER_ADMIN_TOKEN: "s3cret-token-value" });
    expect(readFileSync(`${out}.config`, "utf8").trim()).toBe(config);
    // A dotenv reference, expanded by wrangler from its environment: the value is never on disk.
    const reference = ["COMPUTER_ADMIN_TOKEN=$", "{COMPUTER_ADMIN_TOKEN}\n"].join("");
    expect(readFileSync(`${out}.secrets`, "utf8")).toBe(reference);
    const args = readFileSync(`${out}.args`, "utf8").trim().split("\n");
    expect(args[0]).toBe("deploy");
    expect(args).toContain("--dry-run");
    expect(args.join(" ")).not.toContain("s3cret");
  });

  it("refuses a config that would end its here-document", () => {
    expect(() =>
      deployScript({ wrangler: ["w"], dir: "/d", config: "{\nCOMPUTER_WRANGLER_CONFIG_EOF\n}" }),
    ).toThrow(/here-document/);
  });
});

describe("deleteWorkerScript and r2PutScript", () => {
  it("delete names the Worker and forces", () => {
    const out = join(dir, "delete");
    run(deleteWorkerScript([fakeWrangler], "acme"), { FAKE_OUT: out });
    expect(readFileSync(`${out}.args`, "utf8").trim().split("\n")).toEqual([
      "delete",
      "--name",
      "acme",
      "--force",
    ]);
  });

  it("put pipes stdin to bucket/key", () => {
    const out = join(dir, "put");
    run(r2PutScript([fakeWrangler], "acme-artifacts", "bench/acme/fs-1.json"), { FAKE_OUT: out });
    const args = readFileSync(`${out}.args`, "utf8").trim().split("\n");
    expect(args.slice(0, 5)).toEqual([
      "r2",
      "object",
      "put",
      "acme-artifacts/bench/acme/fs-1.json",
      "--pipe",
    ]);
    expect(args).toContain("--remote");
    expect(readFileSync(`${out}.stdin`, "utf8")).toBe("report");
  });
});

describe("workersDevUrl", () => {
  it("finds the URL wrangler prints and nothing else", () => {
    const output =
      "Uploaded acme (3.1 sec)\nDeployed acme triggers (0.4 sec)\n  https://acme.team.workers.dev\n";
    expect(workersDevUrl(output)).toBe("https://acme.team.workers.dev");
    expect(workersDevUrl("Deployed to https://computer.example.com")).toBeUndefined();
  });
});
