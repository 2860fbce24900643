/**
 * The shell runtime (just-bash in a Dynamic Worker, the computer's files over RPC): the common
 * commands on real files, changes visible through the API, binary safety, limits (an infinite
 * loop times out and the computer keeps working, the loop cap), curl only with egress, git,
 * and the RPC round trips a script costs on a large tree.
 */
import { packTar } from "modern-tar";
import { describe, expect, it } from "vitest";
import { api, createComputer, fsOp, readText, writeFile } from "./helpers.ts";
import { runOk, runOn } from "./runtime-helpers.ts";

async function sha256Hex(bytes: Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

describe("shell runtime: commands on the computer's files", () => {
  it("text tools: cat, grep, sed, awk, sort, uniq, wc, head, tail, cut, tr, jq, xargs, diff", async () => {
    const id = await createComputer();
    await writeFile(id, "fruit.txt", "pear\napple\nfig\napple\nbanana\n");
    await writeFile(id, "data.json", '{"items":[{"n":"a","v":2},{"n":"b","v":5}]}');
    const script = [
      "sort fruit.txt | uniq -c | sort -rn | head -1 | awk '{print $2}'",
      "grep -c apple fruit.txt",
      "sed -n '2p' fruit.txt | tr a-z A-Z",
      "tail -1 fruit.txt | cut -c1-3",
      "wc -l < fruit.txt",
      "jq -r '.items[] | select(.v > 3) | .n' data.json",
      "printf 'x\\ny\\n' | xargs echo",
      "printf 'a\\nb\\n' > one.txt; printf 'a\\nc\\n' > two.txt; diff one.txt two.txt | grep '^[-+][a-z]'",
    ].join("\n");
    const result = await runOn(id, "shell", script);
    expect(result.stdout).toBe("apple\n2\nAPPLE\nban\n5\nb\nx y\n-b\n+c\n");
  });

  it("file tools: ls, find, mkdir, cp, mv, rm, ln, chmod, stat; every change is the DO's at once", async () => {
    const id = await createComputer();
    await writeFile(id, "src/a.txt", "A");
    await writeFile(id, "src/b.txt", "B");
    const result = await runOk(
      id,
      "shell",
      "mkdir -p out/deep && cp -r src out/copy && mv out/copy/a.txt out/deep/a.txt && rm src/b.txt && " +
        "ln -s ../src/a.txt out/link && chmod 755 out/deep/a.txt && mkdir gone && rmdir gone && " +
        "find out -type f | sort && ls src && ! rmdir out 2>/dev/null",
    );
    expect(result.stdout).toBe("out/copy/b.txt\nout/deep/a.txt\na.txt\n");
    expect(await readText(id, "out/deep/a.txt")).toBe("A");
    expect(await readText(id, "out/link")).toBe("A");
    expect((await api(`/v1/computers/${id}/files/src/b.txt`)).status).toBe(404);
    const stat = (await (await fsOp(id, { op: "stat", path: "out/deep/a.txt" })).json()) as { mode: string };
    expect(stat.mode).toBe("0755");
  });

  it("bytes survive: cp, base64 round trip, gzip round trip (levels too), sha256sum", async () => {
    const id = await createComputer();
    const bytes = new Uint8Array(200_000);
    for (let i = 0; i < bytes.length; i += 65_536) crypto.getRandomValues(bytes.subarray(i, i + 65_536));
    await writeFile(id, "bin.dat", bytes);
    const result = await runOk(
      id,
      "shell",
      "cp bin.dat copy.dat && base64 bin.dat | base64 -d > round.dat && gzip -c bin.dat > bin.gz && " +
        "gunzip -c bin.gz > unzipped.dat && gzip -1 -c bin.dat | gunzip > fast.dat && " +
        "gzip --best -c bin.dat | zcat > best.dat && sha256sum bin.dat | cut -d' ' -f1",
    );
    expect(result.stdout.trim()).toBe(await sha256Hex(bytes));
    for (const name of ["copy.dat", "round.dat", "unzipped.dat", "fast.dat", "best.dat"]) {
      const copy = new Uint8Array(await (await api(`/v1/computers/${id}/files/${name}`)).arrayBuffer());
      expect(copy, name).toEqual(bytes);
    }
  });

  it("tar: create (gzip too), list, extract elsewhere (-C, --strip-components), through a pipe", async () => {
    const id = await createComputer();
    const bytes = new Uint8Array(100_000);
    crypto.getRandomValues(bytes.subarray(0, 65_536));
    crypto.getRandomValues(bytes.subarray(65_536));
    await writeFile(id, "src/bin.dat", bytes);
    await writeFile(id, "src/deep/note.txt", "hello\n");
    const result = await runOk(
      id,
      "shell",
      "ln -s deep/note.txt src/link && chmod 750 src/deep/note.txt && tar czf src.tgz src && " +
        "tar tzf src.tgz && gunzip < src.tgz | tar tf - src/deep && mkdir out && tar xzf src.tgz -C out && " +
        "tar -x -f src.tgz -C out --strip-components=1 && mkdir out/piped && tar cf - src | tar xf - -C out/piped && " +
        "cat out/src/link out/deep/note.txt && stat -c %a out/src/deep/note.txt && readlink out/piped/src/link",
    );
    expect(result.stdout).toBe(
      [
        "src/",
        "src/bin.dat",
        "src/deep/",
        "src/deep/note.txt",
        "src/link",
        "src/deep/",
        "src/deep/note.txt",
        "hello",
        "hello",
        "750",
        "deep/note.txt",
        "",
      ].join("\n"),
    );
    for (const name of ["out/src/bin.dat", "out/bin.dat", "out/piped/src/bin.dat"]) {
      const copy = new Uint8Array(await (await api(`/v1/computers/${id}/files/${name}`)).arrayBuffer());
      expect(copy, name).toEqual(bytes);
    }
    const missing = await runOn(id, "shell", "tar xf none.tar");
    expect(missing).toMatchObject({ status: "failed", exitCode: 2 });
    expect(missing.stderr).toContain("tar: none.tar: Cannot open: No such file or directory");
    const absent = await runOn(id, "shell", "tar xf src.tgz nothing/here");
    expect(absent).toMatchObject({ status: "failed", exitCode: 2 });
    expect(absent.stderr).toContain("tar: nothing/here: Not found in archive");
  });

  it("tar extracts nothing outside its directory: a member with '..' is skipped with an error", async () => {
    const id = await createComputer();
    const archive = await packTar([
      { header: { name: "../evil.txt", size: 4 }, body: "evil" },
      { header: { name: "/abs.txt", size: 3 }, body: "abs" },
      { header: { name: "ok.txt", size: 2 }, body: "ok" },
    ]);
    await writeFile(id, "sub/x.tar", archive as Uint8Array<ArrayBuffer>);
    const result = await runOn(id, "shell", "cd sub && tar xf x.tar; echo $?; cat ok.txt abs.txt; ls ..");
    expect(result.stdout).toBe("2\nokabssub\n");
    expect(result.stderr).toContain("tar: ../evil.txt: Member name contains '..'");
    expect(result.stderr).toContain("tar: Removing leading `/' from member names");
  });

  it("html-to-markdown converts HTML (the isolate has no DOM: turndown parses with domino)", async () => {
    const id = await createComputer();
    await writeFile(
      id,
      "page.html",
      "<html><head><style>p{}</style></head><body><h1>Title</h1><p>Some <b>bold</b> and a " +
        '<a href="https://example.test/">link</a>.</p><ul><li>one</li><li>two</li></ul><script>x()</script></body></html>',
    );
    const result = await runOk(
      id,
      "shell",
      "html-to-markdown page.html && echo '<h2>piped</h2>' | html-to-markdown",
    );
    expect(result.stdout).toBe(
      "# Title\n\nSome **bold** and a [link](https://example.test/).\n\n-   one\n-   two\n## piped\n",
    );
  });

  it("stdin feeds a read loop, cwd must exist", async () => {
    const id = await createComputer();
    const loop = await runOk(id, "shell", 'while read -r line; do echo "<$line>"; done', { stdin: "a\nb\n" });
    expect(loop.stdout).toBe("<a>\n<b>\n");
    const missing = await runOn(id, "shell", "echo never", { cwd: "no/such/dir" });
    expect(missing).toMatchObject({ status: "failed", exitCode: 1, stdout: "" });
    expect(missing.stderr).toContain("/workspace/no/such/dir");
  });
});

describe("shell runtime: limits, egress, git", () => {
  it("an infinite loop ends with status timeout and the computer keeps working", async () => {
    const id = await createComputer();
    const result = await runOn(id, "shell", "echo before; while true; do :; done", { timeoutMs: 1500 });
    expect(result).toMatchObject({ status: "timeout", exitCode: null, stdout: "before\n" });
    expect(result.durationMs).toBeLessThan(6000);
    expect((await runOk(id, "shell", "echo alive > alive.txt && cat alive.txt")).stdout).toBe("alive\n");
    expect(await readText(id, "alive.txt")).toBe("alive\n");
  });

  it("the loop cap stops a runaway loop with an error", async () => {
    const id = await createComputer();
    const result = await runOn(id, "shell", "seq 1 2000000 > /dev/null; echo after");
    expect(result.stderr).toContain("limit exceeded");
    expect(result.stdout).not.toContain("after");
    expect(result.status).toBe("failed");
  });

  it("curl exists only when the egress policy lets something out", async () => {
    const none = await createComputer();
    const refused = await runOn(none, "shell", "curl -s http://127.0.0.1:9/");
    expect(refused.exitCode).toBe(127);
    const all = await createComputer({ egress: "all" });
    expect((await runOn(all, "shell", "curl --help")).exitCode).toBe(0);
  });

  it("git runs on the computer's files", async () => {
    const id = await createComputer();
    const result = await runOk(
      id,
      "shell",
      "mkdir repo && cd repo && git init -q && echo hi > f.txt && git add f.txt && git commit -q -m first && " +
        "git log --oneline | wc -l && git status --porcelain | wc -l",
    );
    expect(result.stdout).toBe("1\n0\n");
    expect(await readText(id, "repo/.git/HEAD")).toBe("ref: refs/heads/main\n");
  });
});

describe("shell runtime: RPC round trips", () => {
  it("a script pays for the paths it touches, never for the size of the tree", async () => {
    const id = await createComputer();
    // One js exec writes 1,000 files: concurrent writes travel in one batch.
    const setup = await runOk(
      id,
      "js",
      `import { mkdir, writeFile } from "node:fs/promises";
       export default async () => { await mkdir("big"); await Promise.all(Array.from({ length: 1000 }, (_, i) => writeFile("big/f" + i, i + "\\n"))); }`,
    );
    expect(setup.metrics.fsCalls).toBeLessThanOrEqual(3);
    const calls = async (script: string) => (await runOk(id, "shell", script)).metrics.fsCalls;
    expect(await calls("echo hi")).toBe(0);
    expect(await calls("cat big/f5")).toBe(1);
    expect(await calls("ls big | wc -l")).toBeLessThanOrEqual(3);
    expect(await calls("ls -l big | wc -l")).toBeLessThanOrEqual(3);
    expect(await calls("find big -type f | wc -l")).toBeLessThanOrEqual(3);
    expect(await calls("test -f big/f7 && echo yes")).toBeLessThanOrEqual(2);
    // A redirect to an existing file: a stat, then the open and the write in one round trip.
    expect(await calls("echo x > big/f1")).toBe(2);
    expect(await calls("mkdir -p big && mkdir -p big")).toBeLessThanOrEqual(1);
  });
});
