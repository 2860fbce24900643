/**
 * The export condition under which @computer/sdk's package.json points at its TypeScript
 * sources (src/) instead of the published build (dist/). Only the repo's own tools set it —
 * tsconfig.json's customConditions, the root vitest config, the esbuild bundles and wrangler
 * (WRANGLER_BUILD_CONDITIONS) — so tests and the Worker use the sources without a build, while
 * a consumer of the package, whose tools never name it, gets dist/.
 */
export const SOURCE_CONDITION = "computer-source";

/**
 * What wrangler bundles the Worker with (its WRANGLER_BUILD_CONDITIONS, comma-separated): the
 * source condition, then wrangler's own defaults, which the variable replaces.
 */
export const WORKER_BUILD_CONDITIONS = [SOURCE_CONDITION, "workerd", "worker", "browser"] as const;

/** What the plugin touches of Vite's resolved config (structural: the sdk does not depend on Vite). */
interface ResolvedViteConfig {
  environments: Record<string, { resolve: { conditions: string[] } }>;
}

/**
 * A Vite plugin for the repo's vitest configs: puts SOURCE_CONDITION first in every environment's
 * conditions, after Vite (and the Cloudflare pool) chose theirs, so tests import the SDK's
 * sources, never a dist/ build (docs/STYLE.md).
 */
export function sourceConditionPlugin(): { name: string; configResolved(config: ResolvedViteConfig): void } {
  return {
    name: "computer-source-condition",
    configResolved(config) {
      for (const environment of Object.values(config.environments)) {
        const conditions = environment.resolve.conditions;
        if (!conditions.includes(SOURCE_CONDITION))
          environment.resolve.conditions = [SOURCE_CONDITION, ...conditions];
      }
    },
  };
}
