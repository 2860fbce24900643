/**
 * The runner's basics: exit codes and signals, output order and seq, stdin, cwd, spawn
 * failures, descriptors sealed from commands.
 */
import { closeSync, mkdirSync, openSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { eachSpawner, readAll, tempDir } from "../../test/exec-harness.ts";
import { commandStdio } from "./command-process.ts";
import { Spawner } from "./spawner.ts";

eachSpawner((newTable, by) => {
  describe("exit codes", () => {
    test("0 is completed, non-zero is failed", async () => {
      const table = newTable();
      const ok = await table.start({ command: "true" }).done;
      expect(ok).toMatchObject({ status: "completed", exitCode: 0, truncated: false, runtime: "container" });
      const bad = await table.start({ command: "exit 3" }).done;
      expect(bad).toMatchObject({ status: "failed", exitCode: 3 });
      expect(bad.signal).toBeUndefined();
    });

    test("a command ended by a signal exits 128+n and names the signal", async () => {
      const result = await newTable().start({ command: "kill -USR1 $$" }).done;
      expect(result).toMatchObject({ status: "failed", exitCode: 128 + 10, signal: "SIGUSR1" });
    });

    test("the id is the caller's, or a fresh ex_ id", async () => {
      const table = newTable();
      expect(table.start({ id: "ex_mine", command: "true" }).id).toBe("ex_mine");
      expect(table.start({ command: "true" }).id).toMatch(/^ex_[0-9a-f]{32}$/);
      expect(() => table.start({ id: "ex_mine", command: "true" })).toThrow(
        expect.objectContaining({ code: "EEXIST" }),
      );
      expect(() => table.start({ id: "../x", command: "true" })).toThrow(
        expect.objectContaining({ code: "EINVAL" }),
      );
      expect(() => table.start({ command: "" })).toThrow(expect.objectContaining({ code: "EINVAL" }));
      expect(() => table.start({ command: "true", timeoutMs: -1 })).toThrow(
        expect.objectContaining({ code: "EINVAL" }),
      );
    });

    test("sealed descriptors of the daemon reach the command as /dev/null", async () => {
      const secret = openSync(join(tempDir(), "daemon-only"), "w");
      try {
        const command = `readlink /proc/self/fd/${secret}`;
        // The spawner is started by the daemon with the sealed descriptors as /dev/null.
        const spawner = by === "the spawner" ? await Spawner.start([secret]) : undefined;
        try {
          const sealed = await newTable({ sealedFds: [secret], spawner: () => spawner }).start({ command })
            .done;
          expect(sealed.stdout).toBe("/dev/null\n");
        } finally {
          spawner?.close();
        }
        expect(commandStdio("ignore", [secret])).toHaveLength(secret + 1);
      } finally {
        closeSync(secret);
      }
    });

    test("a wrapper whose binary is missing gives a failed result, not a throw", async () => {
      const table = newTable({ wrapper: (input) => ({ argv: ["/nonexistent/bwrap"], env: input.env }) });
      const result = await table.start({ command: "true" }).done;
      expect(result).toMatchObject({ status: "failed", exitCode: 127 });
      expect(result.stderr).toContain("cannot start the command");
    });
  });

  describe("output", () => {
    test("stdout and stderr arrive in order with one shared seq", async () => {
      const exec = newTable().start({ command: "echo a; sleep 0.05; echo b >&2; sleep 0.05; echo c" });
      const events = await readAll(exec.log.reader());
      expect(events).toEqual([
        { seq: 0, stream: "stdout", data: "a\n" },
        { seq: 1, stream: "stderr", data: "b\n" },
        { seq: 2, stream: "stdout", data: "c\n" },
      ]);
      const result = await exec.done;
      expect(result).toMatchObject({ stdout: "a\nc\n", stderr: "b\n", lastSeq: 2 });
    });

    test("output streams while the command runs", async () => {
      const exec = newTable().start({ command: "echo first; sleep 5; echo second" });
      const reader = exec.log.reader();
      expect(await reader.next()).toEqual({ seq: 0, stream: "stdout", data: "first\n" });
      expect(exec.running).toBe(true);
      exec.kill();
      reader.close();
      await exec.done;
    });

    test("a background child holding the pipes does not keep a finished command open", async () => {
      const started = performance.now();
      const result = await newTable().start({ command: "sleep 5 & echo started" }).done;
      expect(result).toMatchObject({ status: "completed", exitCode: 0, stdout: "started\n" });
      expect(performance.now() - started).toBeLessThan(3000);
    });

    test("a multi-byte character split across reads is kept whole", async () => {
      const result = await newTable().start({ command: "printf '\\342'; sleep 0.05; printf '\\202\\254\\n'" })
        .done;
      expect(result.stdout).toBe("€\n");
    });
  });

  describe("stdin and cwd", () => {
    test("stdin is written and then closed", async () => {
      const result = await newTable().start({ command: "cat; echo done", stdin: "hello\nworld" }).done;
      expect(result.stdout).toBe("hello\nworlddone\n");
    });

    test("without stdin the command reads end-of-file at once", async () => {
      const result = await newTable().start({ command: "cat; echo eof" }).done;
      expect(result.stdout).toBe("eof\n");
    });

    test("a command that ignores its stdin still succeeds", async () => {
      const result = await newTable().start({ command: "true", stdin: "x".repeat(1 << 20) }).done;
      expect(result.status).toBe("completed");
    });

    test("cwd is entered by cd: default, absolute, relative, with spaces", async () => {
      const root = tempDir();
      mkdirSync(join(root, "sub dir"));
      const table = newTable({
        defaults: { cwd: root, timeoutMs: 5000, maxTimeoutMs: 5000, outputCap: 1 << 20 },
      });
      const real = realpathSync(root);
      expect((await table.start({ command: "pwd -P" }).done).stdout).toBe(`${real}\n`);
      expect((await table.start({ command: "pwd -P", cwd: "sub dir" }).done).stdout).toBe(
        `${real}/sub dir\n`,
      );
      expect((await table.start({ command: "pwd -P", cwd: join(root, "sub dir") }).done).stdout).toBe(
        `${real}/sub dir\n`,
      );
      expect((await table.start({ command: 'echo "$PWD"', cwd: "sub dir" }).done).stdout).toBe(
        `${root}/sub dir\n`,
      );
    });

    test("a missing cwd fails the command without running it", async () => {
      const result = await newTable().start({ command: "echo ran", cwd: "/nonexistent/dir" }).done;
      expect(result.status).toBe("failed");
      expect(result.stdout).toBe("");
      expect(result.stderr).toMatch(/can't cd|No such file/);
    });

    test("the command text is not interpreted by the wrapper script", async () => {
      const result = await newTable().start({ command: `echo "$1|$2" '"quoted"' \`echo sub\`` }).done;
      expect(result.stdout).toBe('| "quoted" sub\n');
    });
  });
});
