/**
 * A CPU profile of the Worker's isolate over the inspector (`Profiler.start` … `Profiler.stop`,
 * V8's sampling profiler) and its summary: the functions with the most self time and the most
 * total time (self plus what they called), so a bench row says where the DO's JS time went.
 * The profile is the `.cpuprofile` JSON Chrome's DevTools opens.
 */
import type { Inspector } from "./inspector.ts";

/** V8's `Profiler.Profile`, the fields read here. */
export interface CpuProfile {
  nodes: {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: number[];
  }[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Starts sampling every `intervalUs` microseconds. */
export async function startProfile(inspector: Inspector, intervalUs = 500): Promise<void> {
  await inspector.call("Profiler.enable");
  await inspector.call("Profiler.setSamplingInterval", { interval: intervalUs });
  await inspector.call("Profiler.start");
}

/** Stops sampling; answers the profile. */
export async function stopProfile(inspector: Inspector): Promise<CpuProfile> {
  const { profile } = await inspector.call<{ profile: CpuProfile }>("Profiler.stop");
  return profile;
}

/** One function's share of a profile, in ms. */
export interface ProfileLine {
  name: string;
  selfMs: number;
  totalMs: number;
}

/** A function's key: its name and where it is (file basename:line). */
function frameKey(frame: CpuProfile["nodes"][number]["callFrame"]): string {
  const file = frame.url.split("/").at(-1) ?? "";
  const name = frame.functionName || "(anonymous)";
  return file === "" ? name : `${name} ${file}:${frame.lineNumber + 1}`;
}

/** Self and total time per function over `profiles` (sorted by self time, most first) and their length. */
export function summarizeProfile(profiles: CpuProfile | readonly CpuProfile[]): {
  wallMs: number;
  lines: ProfileLine[];
  /** Per function, its self time by the function that called it. */
  callers: Map<string, Map<string, number>>;
} {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const callers = new Map<string, Map<string, number>>();
  let wallMs = 0;
  for (const profile of Array.isArray(profiles) ? profiles : [profiles as CpuProfile]) {
    wallMs += (profile.endTime - profile.startTime) / 1000;
    addProfile(profile, self, total, callers);
  }
  const lines = [...total.keys()].map((name) => ({
    name,
    selfMs: (self.get(name) ?? 0) / 1000,
    totalMs: (total.get(name) ?? 0) / 1000,
  }));
  lines.sort((a, b) => b.selfMs - a.selfMs);
  return { wallMs, lines, callers };
}

/** Adds one profile's self and total microseconds per function (and self per caller) to the maps. */
function addProfile(
  profile: CpuProfile,
  self: Map<string, number>,
  total: Map<string, number>,
  callers: Map<string, Map<string, number>>,
): void {
  const parent = new Map<number, number>();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // A sample's time is the gap to the next one (V8's timeDeltas[i] is the gap before sample i).
    const us = deltas[i + 1] ?? 0;
    let id: number | undefined = samples[i];
    const node = id === undefined ? undefined : byId.get(id);
    if (!node) continue;
    const key = frameKey(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + us);
    const parentId = parent.get(node.id);
    const caller = parentId === undefined ? undefined : byId.get(parentId);
    if (caller) {
      const byCaller = callers.get(key) ?? new Map<string, number>();
      const callerKey = frameKey(caller.callFrame);
      byCaller.set(callerKey, (byCaller.get(callerKey) ?? 0) + us);
      callers.set(key, byCaller);
    }
    const seen = new Set<string>();
    while (id !== undefined) {
      const at = byId.get(id);
      if (!at) break;
      const k = frameKey(at.callFrame);
      if (!seen.has(k)) {
        seen.add(k);
        total.set(k, (total.get(k) ?? 0) + us);
      }
      id = parent.get(id);
    }
  }
}

/** The summary as text: the `top` functions by self time, then by total time. */
export function formatProfile(profile: CpuProfile | readonly CpuProfile[], top = 25): string {
  const { wallMs, lines, callers } = summarizeProfile(profile);
  const idle = new Set(["(idle)", "(root)", "(program)"]);
  const busy = lines.filter((l) => !idle.has(l.name)).reduce((sum, l) => sum + l.selfMs, 0);
  const row = (l: ProfileLine) =>
    `${l.selfMs.toFixed(1).padStart(9)} ${l.totalMs.toFixed(1).padStart(9)}  ${l.name}`;
  const byTotal = [...lines].filter((l) => l.name !== "(root)").sort((a, b) => b.totalMs - a.totalMs);
  const withCallers = (l: ProfileLine) => {
    const by = [...(callers.get(l.name) ?? [])].sort((a, b) => b[1] - a[1]).slice(0, 3);
    const from = by.map(([name, us]) => `${name} ${(us / 1000).toFixed(0)}`).join(", ");
    return from === "" ? row(l) : `${row(l)}  <- ${from}`;
  };
  return [
    `profile: ${wallMs.toFixed(0)} ms, JS busy (not idle/program) ${busy.toFixed(0)} ms`,
    `   self ms  total ms  function (by self time) <- its callers (self ms)`,
    ...lines.slice(0, top).map(withCallers),
    `   self ms  total ms  function (by total time)`,
    ...byTotal.slice(0, top).map(row),
  ].join("\n");
}
