/**
 * Terminals inside workerd: the shell runtime's line-edited terminal over a real WebSocket
 * upgrade (keys, line editing, cd, history, Ctrl-C, exit status, re-attach with scrollback,
 * resize and bad control messages), the routes' validation and access rules. Container
 * terminals need real computerd: test/e2e/terminals.test.ts.
 */
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { ADMIN, api, apiJson, createComputer, mintToken, readText } from "./helpers.ts";
import { TerminalViewer } from "./terminal-client.ts";

async function open(id: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await apiJson("POST", `/v1/computers/${id}/terminals`, {
    runtime: "shell",
    cols: 80,
    rows: 24,
    ...body,
  });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return (JSON.parse(text) as { id: string }).id;
}

async function attach(id: string, terminalId: string, token = ADMIN): Promise<TerminalViewer> {
  const res = await SELF.fetch(`http://computer.test/v1/computers/${id}/terminals/${terminalId}`, {
    headers: { Upgrade: "websocket", "Sec-WebSocket-Protocol": `computer.terminal.v1, bearer.${token}` },
  });
  expect(res.status).toBe(101);
  expect(res.headers.get("sec-websocket-protocol")).toBe("computer.terminal.v1");
  const socket = res.webSocket;
  if (socket === null) throw new Error("no WebSocket");
  const viewer = new TerminalViewer(socket);
  socket.accept();
  return viewer;
}

describe("shell terminals", () => {
  it("run lines as shell execs with line editing, cd, history and Ctrl-C; exit sets the status", async () => {
    const id = await createComputer();
    const tid = await open(id);
    const viewer = await attach(id, tid);
    let at = await viewer.waitFor(/\$ $/);
    viewer.type("mkdir -p a/b && echo hi > a/b/x.txt\r");
    at = await viewer.waitFor(/\$ $/, at);
    expect(await readText(id, "a/b/x.txt")).toBe("hi\n");
    viewer.type("cd a/b\r");
    at = await viewer.waitFor(/\/workspace\/a\/b.\[0m\$ $/, at);
    viewer.type("cat x.tx?\x7f\x7fxt\r");
    at = await viewer.waitFor(/hi\r\n/, at);
    viewer.type("cd /etc\r");
    at = await viewer.waitFor(/cd: \/etc: No such directory/, at);
    viewer.type("half a line\x03");
    at = await viewer.waitFor(/\^C\r\n/, at);
    viewer.type("\x1b[A\x1b[A\r");
    at = await viewer.waitFor(/hi\r\n/, at);
    viewer.type("exit 3\r");
    expect(await viewer.waitExit()).toEqual({ exitCode: 3 });
    const list = (await (await api(`/v1/computers/${id}/terminals`)).json()) as {
      terminals: { id: string; status: string }[];
    };
    expect(list.terminals).toContainEqual(expect.objectContaining({ id: tid, status: "exited" }));
  });

  it("a dropped viewer re-attaches with the scrollback; the terminal went on without it", async () => {
    const id = await createComputer();
    const tid = await open(id);
    const first = await attach(id, tid);
    const at = await first.waitFor(/\$ $/);
    first.type("echo before-drop\r");
    await first.waitFor(/before-drop\r\n.*\$ $/s, at);
    first.close();
    const second = await attach(id, tid);
    await second.waitFor(/before-drop/);
    second.resize(120, 40);
    second.type("echo $COLUMNS\r");
    await second.waitFor(/120\r\n/);
    second.control("not json");
    second.control(JSON.stringify({ type: "resize", cols: 0, rows: 5 }));
    await second.until(() => second.errors.length === 2, "two error messages");
    expect(second.errors.map((e) => e.code)).toEqual(["EINVAL", "EINVAL"]);
    const res = await api(`/v1/computers/${id}/terminals/${tid}`, { method: "DELETE" });
    expect(await res.json()).toMatchObject({ status: "exited", signal: "SIGHUP" });
    expect(await second.waitExit()).toMatchObject({ signal: "SIGHUP" });
  });

  it("checks the request: runtime, size, cwd; unknown ids are 404; a read-only token may not attach", async () => {
    const id = await createComputer();
    for (const bad of [
      { runtime: "js" },
      { cols: 0 },
      { rows: 5000 },
      { cwd: "/etc" },
      { idleTimeoutSeconds: 0 },
    ]) {
      const res = await apiJson("POST", `/v1/computers/${id}/terminals`, {
        runtime: "shell",
        cols: 80,
        rows: 24,
        ...bad,
      });
      expect(res.status, JSON.stringify(bad)).toBe(400);
    }
    expect((await api(`/v1/computers/${id}/terminals/tm_000000000000000000000000`)).status).toBe(404);
    expect((await api(`/v1/computers/${id}/terminals/nope`)).status).toBe(400);
    const tid = await open(id);
    const ro = await mintToken(id, "ro");
    expect((await api(`/v1/computers/${id}/terminals/${tid}`, { token: ro })).status).toBe(200);
    const res = await SELF.fetch(`http://computer.test/v1/computers/${id}/terminals/${tid}`, {
      headers: { Upgrade: "websocket", "Sec-WebSocket-Protocol": `bearer.${ro}` },
    });
    expect(res.status).toBe(403);
    const none = await SELF.fetch(`http://computer.test/v1/computers/${id}/terminals/${tid}`, {
      headers: { Upgrade: "websocket" },
    });
    expect(none.status).toBe(401);
    expect(
      (await apiJson("POST", `/v1/computers/${id}/terminals`, { runtime: "shell", cols: 80, rows: 24 }, ro))
        .status,
    ).toBe(403);
  });
});
