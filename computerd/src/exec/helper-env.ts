/**
 * The environment of the Node helpers computerd starts (the sandbox network's port bridge):
 * PATH, and Node's compile cache when the daemon has one (NODE_COMPILE_CACHE, set by `computerd
 * host`): each helper is TypeScript that Node strips and compiles at every start (~100–200 ms
 * of CPU here) unless the cache already holds it.
 */
export function helperEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const out: Record<string, string> = { PATH: env.PATH ?? "/usr/bin:/bin" };
  if (env.NODE_COMPILE_CACHE) out.NODE_COMPILE_CACHE = env.NODE_COMPILE_CACHE;
  return out;
}
