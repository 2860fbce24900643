/**
 * The container contract's userland half: what an agent meets in every container runtime, the
 * image's userland (images/computerd/packages.txt): commands run as root, a Linux user's
 * toolbox (python3, gcc, Node 24, git, jq, ...), pandoc turning Markdown into a PDF, and
 * ownership, extended attributes, fifos and a 5 GiB sparse file round-tripping with the API.
 */
import { expect, it } from "vitest";
import { type ContractClient, expectCompleted } from "./container-contract.ts";

/** Programs of the toolbox every container has (images/README.md lists them). */
export const TOOLBOX = [
  "bash",
  "sh",
  "ls",
  "find",
  "grep",
  "sed",
  "awk",
  "less",
  "vi",
  "file",
  "ps",
  "getfattr",
  "setfattr",
  "curl",
  "git",
  "jq",
  "rg",
  "sqlite3",
  "zip",
  "unzip",
  "xz",
  "python3",
  "pip3",
  "gcc",
  "g++",
  "make",
  "node",
  "pandoc",
  "gs",
];

/** One POST /fs op on the client's computer: its status and body. */
async function fsOp(
  client: ContractClient,
  op: Record<string, unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(client.url("/fs"), {
    method: "POST",
    headers: { ...client.auth(), "Content-Type": "application/json" },
    body: JSON.stringify(op),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Declares the userland tests on `client`'s computer (inside the contract's describe). */
export function userlandTests(client: ContractClient): void {
  it("commands run as root (uid and gid 0, named root)", async () => {
    const result = await client.exec("id -u; id -g; id -un; echo $HOME");
    expectCompleted(result);
    expect(result.stdout).toBe("0\n0\nroot\n/root\n");
  }, 120_000);

  it("the toolbox is there: python3 with venv, gcc, Node 24 and the rest", async () => {
    const missing = await client.exec(
      `for p in ${TOOLBOX.join(" ")}; do command -v $p >/dev/null || echo $p; done`,
    );
    expectCompleted(missing);
    expect(missing.stdout).toBe("");
    const result = await client.exec(
      [
        "python3 -c 'print(6 * 7)'",
        "python3 -m venv /tmp/venv && /tmp/venv/bin/python -c 'import sys; print(sys.prefix)'",
        "printf '#include <stdio.h>\\nint main(void){puts(\"compiled\");return 0;}\\n' > /tmp/hello.c",
        "gcc -o /tmp/hello /tmp/hello.c && /tmp/hello",
        "node -e 'console.log(process.versions.node.split(\".\")[0])'",
        "echo '{\"a\":[1,2]}' | jq -c .a",
      ].join(" && "),
    );
    expectCompleted(result);
    expect(result.stdout).toBe("42\n/tmp/venv\ncompiled\n24\n[1,2]\n");
  }, 180_000);

  it("pandoc turns Markdown into a PDF, readable through the API", async () => {
    const result = await client.exec(
      "mkdir -p doc && printf '# Report\\n\\nHello *world*, café.\\n' > doc/report.md && " +
        "pandoc doc/report.md -o doc/report.pdf --pdf-engine=pdfroff && echo made",
    );
    expectCompleted(result);
    expect(result.stdout).toBe("made\n");
    const pdf = await client.read("doc/report.pdf");
    expect(pdf.subarray(0, 5).toString()).toBe("%PDF-");
    expect(pdf.length).toBeGreaterThan(500);
  }, 180_000);

  it("chown, xattrs, fifos and a 5 GiB sparse file round-trip with the API", async () => {
    const made = await client.exec(
      "mkdir -p own && cd own && touch owned && chown 1234:5678 owned && setfattr -n user.k -v v owned && " +
        "mkfifo pipe && truncate -s 5G sparse",
    );
    expectCompleted(made);
    expect(made.sync.status).toBe("complete");
    const stat = async (path: string) => {
      const { status, body } = await fsOp(client, { op: "stat", path });
      expect(status, JSON.stringify(body)).toBe(200);
      return body;
    };
    expect(await stat("own/owned")).toMatchObject({ uid: 1234, gid: 5678 });
    expect(await stat("own/pipe")).toMatchObject({ type: "fifo" });
    expect(await stat("own/sparse")).toMatchObject({ size: 5 * 2 ** 30 });
    const xattr = await fsOp(client, { op: "getxattr", path: "own/owned", name: "user.k" });
    expect(xattr.body).toMatchObject({ value: btoa("v") });
    // And the other way: what the API sets, the container shows.
    expect((await fsOp(client, { op: "chown", path: "own/owned", uid: 4321, gid: 8765 })).status).toBe(200);
    const seen = await client.exec("stat -c '%u:%g %F' own/owned own/pipe");
    expectCompleted(seen);
    expect(seen.stdout).toBe("4321:8765 regular empty file\n0:0 fifo\n");
  }, 180_000);
}
