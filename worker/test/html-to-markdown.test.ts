/**
 * The shell's `html-to-markdown` through the real shell guest: just-bash's command reads the
 * input and checks its options in the guest, turndown converts in the DO
 * (src/guest/host-turndown.ts, src/guest-hosting/html-to-markdown.ts). It behaves as just-bash's
 * own: its options, stdin or a file, its errors, --help.
 */
import { describe, expect, it } from "vitest";
import { createComputer, writeFile } from "./helpers.ts";
import { runOk, runOn } from "./runtime-helpers.ts";

const PAGE =
  "<h1>Title</h1><h2>Sub</h2><ul><li>a</li></ul><pre><code>x = 1</code></pre><hr><footer>f</footer>";

describe("shell runtime: html-to-markdown", () => {
  it("takes just-bash's options: bullet, code fence, rule, heading style", async () => {
    const id = await createComputer();
    await writeFile(id, "page.html", PAGE);
    const plain = await runOk(id, "shell", "html-to-markdown page.html");
    expect(plain.stdout).toBe("# Title\n\n## Sub\n\n-   a\n\n```\nx = 1\n```\n\n---\n");
    const styled = await runOk(
      id,
      "shell",
      "html-to-markdown -b '*' --code='~~~' -r '* * *' --heading-style=setext < page.html",
    );
    expect(styled.stdout).toBe("Title\n=====\n\nSub\n---\n\n*   a\n\n~~~\nx = 1\n~~~\n\n* * *\n");
    const long = await runOk(id, "shell", "html-to-markdown --bullet=+ --hr=___ - < page.html");
    expect(long.stdout).toBe("# Title\n\n## Sub\n\n+   a\n\n```\nx = 1\n```\n\n___\n");
  });

  it("fails as just-bash's does: bad options, a missing file; empty input is empty output", async () => {
    const id = await createComputer();
    const unknown = await runOn(id, "shell", "html-to-markdown --nope");
    expect(unknown).toMatchObject({ exitCode: 1, stdout: "" });
    expect(unknown.stderr).toContain("html-to-markdown: unrecognized option '--nope'");
    const bullet = await runOn(id, "shell", "echo '<p>x</p>' | html-to-markdown -b x");
    expect(bullet).toMatchObject({
      exitCode: 1,
      stdout: "",
      stderr: "html-to-markdown: invalid bullet marker\n",
    });
    const fence = await runOn(id, "shell", "echo '<p>x</p>' | html-to-markdown -c '\"'");
    expect(fence).toMatchObject({
      exitCode: 1,
      stdout: "",
      stderr: "html-to-markdown: invalid code fence\n",
    });
    const missing = await runOn(id, "shell", "html-to-markdown nothing.html");
    expect(missing).toMatchObject({
      exitCode: 1,
      stdout: "",
      stderr: "html-to-markdown: nothing.html: No such file or directory\n",
    });
    const empty = await runOk(id, "shell", "printf '  \\n' | html-to-markdown; echo \"[$?]\"");
    expect(empty.stdout).toBe("[0]\n");
  });

  it("--help prints just-bash's usage", async () => {
    const id = await createComputer();
    const help = await runOk(id, "shell", "html-to-markdown --help");
    expect(help.stdout).toContain("Usage: html-to-markdown [OPTION]... [FILE]");
    expect(help.stdout).toContain("--heading-style=STYLE");
  });

  it("execs converting at once in one computer's isolate each get their own Markdown", async () => {
    const id = await createComputer();
    for (const tag of ["a", "b"])
      for (let i = 1; i <= 5; i++) await writeFile(id, `${tag}${i}.html`, `<p>${tag}${i}</p>`);
    await runOk(id, "shell", "true");
    // A file is read over the DO's RPC inside just-bash's command, before it converts: the two
    // execs' commands interleave there.
    const script = (tag: string) => `for i in 1 2 3 4 5; do html-to-markdown ${tag}$i.html; done`;
    const [a, b] = await Promise.all([runOk(id, "shell", script("a")), runOk(id, "shell", script("b"))]);
    expect(a.stdout).toBe("a1\na2\na3\na4\na5\n");
    expect(b.stdout).toBe("b1\nb2\nb3\nb4\nb5\n");
  });
});
