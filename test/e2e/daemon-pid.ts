/** Finding one computer's computerd among the processes of a fleet's `computerd host`. */
import type { Fleet } from "@computer/fleet";

/** The pid of computer `id`'s computerd, from its latest `listening` line in the host's output. */
export function daemonPid(fleet: Fleet, id: string): number {
  let pid: number | undefined;
  for (const line of fleet.hostOutput().split("\n")) {
    const at = line.indexOf(`[${id}] {`);
    if (at < 0) continue;
    try {
      const event = JSON.parse(line.slice(at + id.length + 3)) as { event?: string; pid?: number };
      if (event.event === "listening") pid = event.pid;
    } catch {
      // Not an event line.
    }
  }
  if (pid === undefined) throw new Error(`no listening line for ${id}:\n${fleet.hostOutput()}`);
  return pid;
}
