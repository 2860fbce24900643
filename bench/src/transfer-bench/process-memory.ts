/**
 * The resident memory of this process's descendants named `workerd` (the runtime the local
 * Worker starts, where the Worker and every Durable Object run), read from /proc, and a sampler that
 * keeps the peak while transfers run.
 */
import { readdirSync, readFileSync } from "node:fs";

interface ProcessEntry {
  pid: number;
  ppid: number;
  name: string;
  rssBytes: number;
}

function entry(pid: number): ProcessEntry | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may hold spaces: the fields after the last ")" are fixed.
    const close = stat.lastIndexOf(")");
    const name = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" ");
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const rss = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return { pid, ppid: Number(fields[1]), name, rssBytes: Number(rss ?? 0) * 1024 };
  } catch {
    return undefined; // exited meanwhile
  }
}

/** Resident bytes of every `workerd` below process `root` (default: this one), summed. */
export function workerdRss(root = process.pid): number {
  const all = readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map((name) => entry(Number(name)))
    .filter((e): e is ProcessEntry => e !== undefined);
  const children = new Map<number, ProcessEntry[]>();
  for (const e of all) children.set(e.ppid, [...(children.get(e.ppid) ?? []), e]);
  let total = 0;
  const stack = [...(children.get(root) ?? [])];
  for (let e = stack.pop(); e !== undefined; e = stack.pop()) {
    if (e.name === "workerd") total += e.rssBytes;
    stack.push(...(children.get(e.pid) ?? []));
  }
  return total;
}

/**
 * Samples workerdRss every `everyMs` until stopped; `stop()` answers the peak seen, `mark()` the
 * peak since the previous mark (a row's own).
 */
export function sampleWorkerdPeak(everyMs = 250): { stop(): number; mark(): number } {
  let peak = workerdRss();
  let sincePeak = peak;
  const timer = setInterval(() => {
    const now = workerdRss();
    peak = Math.max(peak, now);
    sincePeak = Math.max(sincePeak, now);
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(peak, workerdRss());
    },
    mark() {
      const now = workerdRss();
      const answer = Math.max(sincePeak, now);
      sincePeak = now;
      return answer;
    },
  };
}
