/**
 * Terminals on the real local fleet: a container terminal is a real pseudo-terminal in the
 * sandbox of `computerd host` (stty size after a resize, Ctrl-C ends a running sleep, vi opens
 * and quits, what it writes syncs to the computer, a dropped WebSocket re-attaches with the
 * scrollback, the exit status arrives); a shell-runtime terminal is line-edited just-bash; an
 * idle one closes by itself and DELETE ends one.
 */

import { type Fleet, startFleet } from "@computer/fleet";
import { canRun, containerMissing } from "@computer/fleet/capabilities";
import type { ContractFetch } from "@computer/worker/exec-contract";
import { TerminalViewer } from "@computer/worker/terminal-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createComputer, fleetFetch } from "./fleet-fetch.ts";

const containerCapable = canRun("container terminals", containerMissing());

let fleet: Fleet;
let api: ContractFetch;
const ID = "e2e-terminals";

async function openTerminal(body: Record<string, unknown>): Promise<string> {
  const res = await api(`/v1/computers/${ID}/terminals`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  expect(res.status, text).toBe(201);
  return (JSON.parse(text) as { id: string }).id;
}

/** Attaches a viewer the way a browser does: the token as a subprotocol. */
async function attach(terminalId: string): Promise<TerminalViewer> {
  const url = `${fleet.url.replace(/^http/, "ws")}/v1/computers/${ID}/terminals/${terminalId}`;
  const socket = new WebSocket(url, ["computer.terminal.v1", `bearer.${fleet.adminToken}`]);
  socket.binaryType = "arraybuffer";
  const viewer = new TerminalViewer(socket);
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve());
    socket.addEventListener("error", () => reject(new Error("the terminal WebSocket did not open")));
  });
  expect(socket.protocol).toBe("computer.terminal.v1");
  return viewer;
}

/** Sets a prompt that its own echo does not spell, and waits for it. */
async function promptOf(viewer: TerminalViewer): Promise<number> {
  viewer.type("PS1='READ''Y$ '\r");
  return viewer.waitFor(/READY\$ /);
}

async function readFile(path: string): Promise<string | undefined> {
  const res = await api(`/v1/computers/${ID}/files/${path}`);
  if (res.status === 200) return res.text();
  await res.body?.cancel();
  return undefined;
}

describe("terminals on the local fleet", () => {
  beforeAll(async () => {
    fleet = await startFleet({ computerdHost: containerCapable });
    api = fleetFetch(fleet);
    await createComputer(api, ID);
  }, 180_000);

  afterAll(async () => {
    await fleet?.stop();
  });

  it.runIf(containerCapable)(
    "container: a real pty — stty size, resize, Ctrl-C, vi, sync, re-attach with scrollback, exit status",
    async () => {
      const id = await openTerminal({ runtime: "container", cols: 100, rows: 30 });
      const viewer = await attach(id);
      let at = await viewer.waitFor(/[$#] $/);
      at = await promptOf(viewer);
      viewer.type("stty size\r");
      at = await viewer.waitFor(/30 100/, at);
      viewer.resize(132, 43);
      viewer.type("stty size\r");
      at = await viewer.waitFor(/43 132/, at);
      // The shell holds no descriptor of computerd's FUSE device.
      viewer.type("echo fuse-fds=$(ls -l /proc/$$/fd | grep -c fuse)\r");
      at = await viewer.waitFor(/\rfuse-fds=0\r\n/, at);
      viewer.type("sleep 30; echo after-sleep\r");
      await new Promise((resolve) => setTimeout(resolve, 500));
      viewer.type("\x03");
      at = await viewer.waitFor(/READY\$ /, at);
      viewer.type("echo status=$?\r");
      at = await viewer.waitFor(/status=130/, at);
      // The command's echo spells it; its output would stand on a line of its own.
      expect(viewer.text).not.toMatch(/\nafter-sleep\r\n/);
      viewer.type("vi from-vi.txt\r");
      at = await viewer.waitFor(/~/, at);
      viewer.type("iwritten in vi\x1b:wq\r");
      at = await viewer.waitFor(/READY\$ /, at);
      // What the terminal wrote reaches the computer while the terminal stays open.
      const deadline = Date.now() + 20_000;
      while ((await readFile("from-vi.txt")) !== "written in vi\n" && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await readFile("from-vi.txt")).toBe("written in vi\n");
      // An API upload shows up in the terminal's ls without a new exec.
      await api(`/v1/computers/${ID}/files/uploaded.txt`, { method: "PUT", body: "up" });
      await new Promise((resolve) => setTimeout(resolve, 500));
      viewer.type("ls\r");
      at = await viewer.waitFor(/uploaded\.txt/, at);
      // Drop the connection; the terminal goes on, and a new viewer gets the scrollback.
      viewer.close();
      const again = await attach(id);
      await again.waitFor(/status=130/);
      again.type("echo back-again\r");
      await again.waitFor(/\rback-again\r\n/);
      again.type("exit 5\r");
      expect(await again.waitExit()).toEqual({ exitCode: 5 });
      const state = (await (await api(`/v1/computers/${ID}/terminals/${id}`)).json()) as Record<
        string,
        unknown
      >;
      expect(state).toMatchObject({ id, status: "exited", exitCode: 5, runtime: "container" });
    },
    120_000,
  );

  it.runIf(containerCapable)(
    "container: DELETE ends a terminal with SIGHUP",
    async () => {
      const id = await openTerminal({ runtime: "container", cols: 80, rows: 24 });
      const viewer = await attach(id);
      await viewer.waitFor(/[$#] $/);
      const res = await api(`/v1/computers/${ID}/terminals/${id}`, { method: "DELETE" });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: "exited", signal: "SIGHUP" });
      expect(await viewer.waitExit()).toMatchObject({ signal: "SIGHUP" });
    },
    60_000,
  );

  it("shell: line-edited just-bash with cd, files shared with the API, Ctrl-D exits", async () => {
    const id = await openTerminal({ runtime: "shell", cols: 80, rows: 24 });
    const viewer = await attach(id);
    let at = await viewer.waitFor(/\$ $/);
    viewer.type("mkdir -p sh/dir && echo from-shell > sh/dir/f.txt\r");
    at = await viewer.waitFor(/\$ $/, at);
    viewer.type("cd sh/dir\r");
    at = await viewer.waitFor(/\/workspace\/sh\/dir.*\$ $/, at);
    viewer.type("cat f.x\x7f\x7f.txt\r");
    at = await viewer.waitFor(/from-shell\r\n/, at);
    expect(await readFile("sh/dir/f.txt")).toBe("from-shell\n");
    viewer.type("\x04");
    expect(await viewer.waitExit()).toEqual({ exitCode: 0 });
  }, 60_000);

  it("an idle terminal (no viewer) closes after its idle timeout", async () => {
    const id = await openTerminal({ runtime: "shell", cols: 80, rows: 24, idleTimeoutSeconds: 1 });
    const deadline = Date.now() + 15_000;
    let state: { status?: string } = {};
    while (state.status !== "exited" && Date.now() < deadline) {
      state = (await (await api(`/v1/computers/${ID}/terminals/${id}`)).json()) as { status?: string };
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    expect(state.status).toBe("exited");
  }, 30_000);
});
