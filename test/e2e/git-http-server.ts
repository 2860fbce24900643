/**
 * A real git smart-HTTP server on 127.0.0.1 for the git e2e tests: a tiny node:http server
 * that runs `git http-backend` (CGI) for each request over repositories in one directory.
 * Also small helpers to build repositories with the real git CLI and to copy a vfs tree to
 * disk so the real git can check what our git wrote.
 */
import { execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import type { Vfs } from "@computer/vfs";

/** A running server: `url` is its base (`http://127.0.0.1:PORT`), repositories are `${url}/<dir>`. */
export interface GitHttpServer {
  url: string;
  /** Requests served so far (method and path), for assertions about what a client asked. */
  requests: string[];
  close(): Promise<void>;
}

/** Runs the real git CLI in `cwd` with a fixed identity and clock; returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: cwd,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Real Git",
      GIT_AUTHOR_EMAIL: "real@example.com",
      GIT_COMMITTER_NAME: "Real Git",
      GIT_COMMITTER_EMAIL: "real@example.com",
      GIT_AUTHOR_DATE: "@1700000000 +0000",
      GIT_COMMITTER_DATE: "@1700000000 +0000",
    },
  });
}

/** Splits a CGI response into its status, headers and the body that follows them. */
function parseCgi(output: Buffer): { status: number; headers: Record<string, string>; body: Buffer } {
  const end = output.indexOf("\r\n\r\n");
  const split = end >= 0 ? end : output.indexOf("\n\n");
  const headerText = output.subarray(0, split).toString("latin1");
  const body = output.subarray(split + (end >= 0 ? 4 : 2));
  const headers: Record<string, string> = {};
  let status = 200;
  for (const line of headerText.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (key.toLowerCase() === "status") status = Number(value.split(" ")[0]);
    else headers[key] = value;
  }
  return { status, headers, body };
}

/** Serves the repositories under `root` with `git http-backend` on an OS-chosen port of 127.0.0.1. */
export async function startGitHttpServer(root: string): Promise<GitHttpServer> {
  const requests: string[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const child = spawn("git", ["http-backend"], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: "1",
        REQUEST_METHOD: req.method ?? "GET",
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers["content-type"] ?? "",
        ...(req.headers["content-length"] === undefined
          ? {}
          : { CONTENT_LENGTH: req.headers["content-length"] }),
        REMOTE_ADDR: "127.0.0.1",
        GIT_PROTOCOL: String(req.headers["git-protocol"] ?? ""),
        HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"] ?? ""),
      },
    });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.resume();
    req.pipe(child.stdin);
    child.on("close", () => {
      const { status, headers, body } = parseCgi(Buffer.concat(chunks));
      res.writeHead(status, headers);
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Copies the vfs subtree at `vfsDir` to `diskDir`: files with their mode, directories, symlinks. */
export function exportTree(vfs: Vfs, vfsDir: string, diskDir: string): void {
  mkdirSync(diskDir, { recursive: true });
  for (const entry of vfs.list(vfsDir)) {
    const from = vfsDir === "/" ? `/${entry.name}` : `${vfsDir}/${entry.name}`;
    const to = join(diskDir, entry.name);
    if (entry.type === "dir") exportTree(vfs, from, to);
    else if (entry.type === "symlink") symlinkSync(vfs.readlink(from), to);
    else if (entry.type === "file") {
      writeFileSync(to, vfs.readFile(from));
      chmodSync(to, entry.mode);
    }
  }
}
