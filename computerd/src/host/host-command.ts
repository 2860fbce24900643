/**
 * `computerd host [options]`: the local launcher of `make dev`. Serves the host API on
 * 127.0.0.1 until SIGTERM/SIGINT/SIGHUP, then stops every daemon it started. Prints one JSON
 * line when listening ({"event":"listening","port":N}).
 */
import type { Command } from "../main.ts";
import { fuse3Unavailable } from "../mount/fuse3-native.ts";
import { startHost } from "./bwrap-launcher.ts";
import { bundleDaemon } from "./daemon-bundle.ts";
import { HOST_HELP, HostConfigError, parseHostConfig } from "./host-config.ts";

async function run(args: string[]): Promise<number> {
  let config: ReturnType<typeof parseHostConfig>;
  try {
    config = parseHostConfig(args, process.env);
  } catch (error) {
    if (!(error instanceof HostConfigError)) throw error;
    console.error(`computerd host: ${error.message}`);
    return 2;
  }
  if (config === "help") {
    console.log(HOST_HELP);
    return 0;
  }
  // Every daemon would fail to mount: say so once, at start, with the fix.
  const unavailable = config.mount === "fuse3" ? fuse3Unavailable() : undefined;
  if (unavailable !== undefined) {
    console.error(`computerd host: --mount fuse3 (the default): ${unavailable}; or pass --mount none`);
    return 2;
  }
  if (config.bundle) {
    const bundled = await bundleDaemon().catch((error: Error) => {
      console.error(`computerd host: daemons run from the sources (the bundle failed: ${error.message})`);
      return undefined;
    });
    if (bundled !== undefined) config = { ...config, computerd: bundled };
  }
  const host = await startHost(config);
  console.log(JSON.stringify({ event: "listening", host: config.listen, port: host.port, dir: config.dir }));
  const signal = await new Promise<string>((resolve) => {
    for (const name of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.once(name, () => resolve(name));
  });
  await host.close();
  console.log(JSON.stringify({ event: "stopped", signal }));
  return 0;
}

/** The host command. */
export const hostCommand: Command = {
  summary: "run one computerd per computer on demand for a local Worker (see host --help)",
  run,
};
