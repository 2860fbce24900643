/**
 * What the host server asks of a running `computerd serve` over its HTTP API, wherever it runs
 * (a child process or a container): is it healthy, and when did it last run a command.
 */

/** True when `GET {url}/health` answers 200 within 2 s. */
export async function daemonHealthy(url: string): Promise<boolean> {
  if (url === "") return false;
  try {
    const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * When a command last ran (now while one runs; background processes do not count), from the
 * daemon's exec list (asked with its secret): execs arrive over the link, so the host sees
 * no request for them. 0 when the daemon does not answer.
 */
export async function daemonLastActivity(url: string, secret: string): Promise<number> {
  try {
    const res = await fetch(`${url}/exec`, {
      headers: { Authorization: `Bearer ${secret}` },
      signal: AbortSignal.timeout(2000),
    });
    if (!res.ok) return 0;
    type Row = { status?: string; startedAt?: string; durationMs?: number; detached?: boolean };
    const body = (await res.json()) as { execs?: Row[] } | Row[];
    const list = Array.isArray(body) ? body : (body.execs ?? []);
    let last = 0;
    for (const exec of list) {
      // A background process alone keeps no container up: preview traffic does (lastUsed).
      if (exec.detached === true) continue;
      if (exec.status === "running") return Date.now();
      const started = Date.parse(exec.startedAt ?? "");
      if (Number.isFinite(started)) last = Math.max(last, started + (exec.durationMs ?? 0));
    }
    return last;
  } catch {
    return 0;
  }
}
