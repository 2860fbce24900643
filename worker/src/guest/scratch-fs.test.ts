/**
 * The scratch tree's command stubs: a new Bash leaves them as a table, and every script sees the
 * same tree as over a plain InMemoryFs, where just-bash writes each stub at once.
 */
import { Bash, InMemoryFs } from "just-bash/browser";
import { describe, expect, it } from "vitest";
import { commandStub, ScratchFs } from "./scratch-fs.ts";

async function run(fs: InMemoryFs, script: string) {
  for (const dir of ["/bin", "/usr/bin", "/tmp"]) fs.mkdirSync(dir, { recursive: true });
  const bash = new Bash({ fs, cwd: "/tmp", env: { HOME: "/home/user" } });
  const { stdout, stderr, exitCode } = await bash.exec(script, { cwd: "/tmp", rawScript: true });
  return { stdout, stderr, exitCode };
}

describe("ScratchFs", () => {
  it("leaves a new Bash's command stubs unwritten until a script touches them", async () => {
    const fs = new ScratchFs();
    await run(fs, "true");
    const pending = fs.pendingStubs;
    // Two per command (/bin and /usr/bin), none written by `true`, a builtin.
    expect(pending).toBeGreaterThan(100);
    expect(await fs.exists("/usr/bin/grep")).toBe(true);
    expect(fs.pendingStubs).toBe(pending);
    // Running `cat` looks it up in PATH (exists, then stat): that stub alone is written.
    const bash = new Bash({ fs, cwd: "/tmp" });
    expect((await bash.exec("echo hi | cat", { cwd: "/tmp" })).stdout).toBe("hi\n");
    expect(fs.pendingStubs).toBeLessThan(pending);
    expect(fs.pendingStubs).toBeGreaterThan(pending - 5);
    expect(await fs.readFile("/usr/bin/cat")).toBe(commandStub("cat"));
    await fs.readdir("/bin");
    expect(fs.pendingStubs).toBe(0);
  });

  const scripts = [
    "ls /bin | wc -l; ls /usr/bin | head -3; ls / | sort",
    "cat /bin/cat; cat /usr/bin/../bin/ls; cat //usr/bin/sed",
    "which grep; command -v ls; [ -f /bin/ls ] && echo file; [ -x /usr/bin/sed ]; echo $?; test -e //bin/awk; echo $?",
    "rm /bin/ls; ls /bin/ls; echo $?; cat /usr/bin/ls; ls /bin | wc -l",
    "echo mine > /usr/bin/mine; ls /usr/bin | grep -c .; cat /usr/bin/mine; echo more >> /bin/cat; cat /bin/cat",
    "mv /bin /old; ls /old | wc -l; ls /bin; echo $?; mv /usr/bin/tr /tmp/tr; cat /tmp/tr; ls /usr/bin/tr",
    "ln -s /usr/bin /tmp/u; cat /tmp/u/tr; ls /tmp/u | wc -l; ln -s /bin/cut /tmp/c; cat /tmp/c",
    "cd /usr/bin && cat ./wc && ls . | wc -l && echo g* && cd .. && ls bin | head -2",
    "find /bin -name 'g*' | sort; find / -name sort | sort",
    "cp /bin/seq /tmp/s && cat /tmp/s; cp -r /usr/bin /tmp/ub && ls /tmp/ub | wc -l",
    "chmod 755 /bin/tr; [ -x /bin/tr ]; echo $?; stat -c '%s %a %F' /bin/tr /usr/bin/head",
    "rm -rf /usr; ls /usr/bin; echo $?; cat /bin/ls; mkdir -p /usr/bin; ls /usr/bin | wc -l",
    "du -s /bin; wc -c /usr/bin/awk; head -1 /bin/head; readlink -f /bin/ls",
  ];

  it.each(scripts)("sees the tree as if every stub were written: %s", async (script) => {
    expect(await run(new ScratchFs(), script)).toEqual(await run(new InMemoryFs(), script));
  });
});
