/**
 * Failing operations run both ways for the errno e2e test: as syscalls in the container (a
 * python script that prints the errno name of each call) and as the matching HTTP API request
 * (its error code). Each case names the code both sides must give.
 */
import { type Computer, ComputerError, type FsOpBody, type FsOpName } from "@computer/sdk";
import { expectSynced, runContainer } from "./fleet-computer.ts";

/** A syscall in the container; paths are relative to the workspace root. */
export type Call = [op: string, ...args: (string | number)[]];

/** The HTTP request that does the same as a Call. */
export type Request =
  | { fs: Record<string, unknown> }
  | { method: "PUT" | "DELETE"; path: string; body?: string };

/** One failing operation and the code both sides must answer. */
export interface ErrnoCase {
  code: string;
  call: Call;
  /** Absent when no API request does the same (the test says why). */
  request?: Request;
}

/** Runs `calls` in one process, in order; prints a JSON list of errno names ("OK" on success). */
const RUNNER = `
import errno, json, os, sys
def write_all(fd, data):
    # A short count (at the quota) is retried; the retry that takes nothing reports the errno.
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
def run(op, *a):
    if op == "write":
        fd = os.open(a[0], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            write_all(fd, b"x" * a[1]); os.fsync(fd)
        finally:
            os.close(fd)
    elif op == "open":
        os.close(os.open(a[0], sum(getattr(os, f) for f in a[1].split("|")), 0o644))
    else:
        getattr(os, op)(*a)
out = []
for c in json.loads(sys.argv[1]):
    try:
        run(*c); out.append("OK")
    except OSError as e:
        out.append(errno.errorcode.get(e.errno, str(e.errno)))
print(json.dumps(out))
`;

/** Runs the calls in the container (one exec); answers each call's errno name. */
export async function containerErrnos(api: Computer, calls: Call[]): Promise<string[]> {
  const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  const result = await runContainer(api, `python3 -c ${quote(RUNNER)} ${quote(JSON.stringify(calls))}`);
  expectSynced(result);
  return JSON.parse(result.stdout) as string[];
}

/** Sends the request through the SDK; answers the error code of its answer ("OK" on success). */
export async function apiCode(api: Computer, request: Request): Promise<string> {
  try {
    if ("fs" in request) await api.files.op(request.fs as FsOpBody<FsOpName>);
    else if (request.method === "PUT") await api.files.write(request.path, request.body ?? "");
    else await api.files.remove(request.path);
    return "OK";
  } catch (err) {
    if (err instanceof ComputerError) return err.code;
    throw err;
  }
}
