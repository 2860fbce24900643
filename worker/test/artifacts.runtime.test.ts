/**
 * Publishing from the runtimes: the shell's `publish` command and `computer:artifacts` in the
 * js runtime run next to the vfs in the DO and return the same signed links as the HTTP route.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, apiJson, createComputer, writeFile } from "./helpers.ts";

interface Result {
  status: string;
  exitCode: number | null;
  stdout: string;
  stderr: string;
  value?: unknown;
}

async function run(id: string, runtime: "shell" | "js", source: string): Promise<Result> {
  const res = await apiJson("POST", `/v1/computers/${id}/exec`, { runtime, source });
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Result;
}

function unique(prefix: string): string {
  return `${prefix}-${crypto.randomUUID().slice(0, 8)}`;
}

describe("publish from the shell", () => {
  it("prints the signed link of the published directory", async () => {
    const id = await createComputer();
    const name = unique("shell-site");
    await writeFile(id, "site/index.html", "<p>from the shell</p>");
    const result = await run(id, "shell", `cd site && echo more > more.txt && publish --name ${name} .`);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(new RegExp(`^published ${name}@1 \\(2 files, 26 bytes, link expires `));
    const url = result.stdout.trim();
    expect(url).toMatch(new RegExp(`^http://computer\\.test/a/${name}/1/[^/]+/$`));
    const page = await SELF.fetch(url);
    expect(await page.text()).toBe("<p>from the shell</p>");
    expect(await (await SELF.fetch(`${url}more.txt`)).text()).toBe("more\n");
    const listed = (await (await api(`/v1/artifacts/${name}`)).json()) as { versions: { version: string }[] };
    expect(listed.versions.map((v) => v.version)).toEqual(["1"]);
  });

  it("reports usage and errors with exit codes", async () => {
    const id = await createComputer();
    const usage = await run(id, "shell", "publish");
    expect(usage.exitCode).toBe(2);
    expect(usage.stderr).toContain("usage: publish");
    const missing = await run(id, "shell", "publish --name x-missing nope.txt");
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/^publish: ENOENT/);
    const outside = await run(id, "shell", "publish /etc/passwd");
    expect(outside.exitCode).toBe(1);
    expect(outside.stderr).toContain("only files under /workspace");
    const json = await run(
      id,
      "shell",
      `echo hi > f.txt && publish --json --name ${unique("j")} --version 0.1 f.txt`,
    );
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      version: "0.1",
      type: "file",
      files: [{ path: "f.txt", size: 3 }],
    });
  });
});

describe("computer:artifacts in the js runtime", () => {
  it("publish() returns the artifact with its link", async () => {
    const id = await createComputer();
    const name = unique("js-file");
    await writeFile(id, "out/data.json", '{"a":1}');
    const result = await run(
      id,
      "js",
      `import { publish } from "computer:artifacts";
       export default async () => publish({ path: "out/data.json", name: "${name}", ttlSeconds: 600 });`,
    );
    expect(result.status, result.stderr).toBe("completed");
    const value = result.value as { name: string; version: string; url: string; files: { sha256: string }[] };
    expect(value).toMatchObject({ name, version: "1" });
    const res = await SELF.fetch(value.url);
    expect(res.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await res.text()).toBe('{"a":1}');
  });
});
