/**
 * How much work each scenario does. FULL is BENCH.md's (the reference's sizes, so a full run
 * compares line by line with it); QUICK is CI's smoke pass (`--quick`): every scenario still
 * runs, with about a fifth of the work. Scenario names carry their size ("create 200 files"),
 * so a quick run is never read as, or compared with, a full one; ids stay the same.
 */
import { fileURLToPath } from "node:url";

/** A committed npm project (package.json + package-lock.json) the install scenarios install. */
export interface NpmProject {
  dir: string;
  /** Packages an install leaves in node_modules/.package-lock.json. */
  packages: number;
  /** The fewest files an install must leave. */
  minFiles: number;
}

export interface BenchSizes {
  /** Files of create, stat and rm. */
  files: number;
  /** The mkdir and find tree: a × b directories of c files each. */
  tree: readonly [number, number, number];
  /** MiB of the bulk scenarios. */
  mib: number;
  /** Files of the git commit and clone scenarios beyond the reference. */
  gitFiles: number;
  /** Directories of 100 files of the git status scenario. */
  statusDirs: number;
  npm: NpmProject;
  /** Files written before each of the fleet's two sync fences. */
  fences: readonly [number, number];
  /** Warm exec round trips per repetition. */
  roundTrips: number;
}

const fixture = (name: string) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url));

/** A web application's tree (React, MUI, webpack, Babel, Jest, ESLint, TypeScript): ≈ 27,000 files, 218 MB. */
export const NPM_WEBAPP: NpmProject = { dir: fixture("npm-webapp"), packages: 644, minFiles: 20_000 };
/** A small server's (express, axios): 808 files, 7 MB. */
export const NPM_SMALL: NpmProject = { dir: fixture("npm-small"), packages: 81, minFiles: 700 };

export const FULL: BenchSizes = {
  files: 1000,
  tree: [10, 10, 10],
  mib: 64,
  gitFiles: 1000,
  statusDirs: 100,
  npm: NPM_WEBAPP,
  fences: [1000, 10_000],
  roundTrips: 10,
};

export const QUICK: BenchSizes = {
  files: 200,
  tree: [10, 5, 2],
  mib: 16,
  gitFiles: 200,
  statusDirs: 10,
  npm: NPM_SMALL,
  fences: [200, 2000],
  roundTrips: 5,
};
