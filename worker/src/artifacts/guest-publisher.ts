/**
 * Publishing for the shell and js runtimes (ArtifactPublisher of guest-hosting/guest-services.ts):
 * `computer:artifacts`' publish() and the shell's `publish` command, both running in the DO
 * through publish-version.ts. Guest paths are /workspace paths; relative ones start at the cwd.
 */
import { WORKSPACE } from "@computer/vfs";
import type { ComputerContext } from "../computer/context.ts";
import type { ArtifactPublisher, PublishRequest } from "../guest-hosting/guest-services.ts";
import { ApiError } from "../http/errors.ts";
import { parseBodyPath } from "../http/paths.ts";
import { type PublishedArtifact, type PublishOptions, publish } from "./publish-version.ts";

const USAGE =
  "usage: publish [--name NAME] [--version VERSION] [--ttl SECONDS] [--json] PATH\n" +
  "Publishes a file or directory as NAME@VERSION and prints its signed public link.\n";

/** The vfs path of guest path `path` (absolute under /workspace, or relative to `cwd`). */
export function guestToVfsPath(path: string, cwd: string): string {
  const absolute = path.startsWith("/") ? path : `${cwd.replace(/\/$/, "")}/${path}`;
  const parts: string[] = [];
  for (const part of absolute.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") parts.pop();
    else parts.push(part);
  }
  const normal = `/${parts.join("/")}`;
  if (normal !== WORKSPACE && !normal.startsWith(`${WORKSPACE}/`)) {
    throw new ApiError("EINVAL", `only files under ${WORKSPACE} can be published`, { path });
  }
  return parseBodyPath(normal.slice(WORKSPACE.length));
}

function optionalField<T>(
  value: unknown,
  key: string,
  check: (v: unknown) => v is T,
  what: string,
): T | undefined {
  const field = (value as Record<string, unknown>)[key];
  if (field === undefined) return undefined;
  if (!check(field)) throw new ApiError("EINVAL", `'${key}' must be ${what}`);
  return field;
}

const isString = (v: unknown): v is string => typeof v === "string";
const isInteger = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v);

/** Checks a request that came from guest code (any shape) into PublishOptions and a vfs path. */
function fromRequest(request: unknown, cwd: string): { path: string; options: PublishOptions } {
  if (typeof request !== "object" || request === null)
    throw new ApiError("EINVAL", "publish() takes { path, ... }");
  const path = optionalField(request, "path", isString, "a string");
  if (path === undefined) throw new ApiError("EINVAL", "'path' is required");
  const name = optionalField(request, "name", isString, "a string");
  const version = optionalField(request, "version", isString, "a string");
  const ttlSeconds = optionalField(request, "ttlSeconds", isInteger, "an integer");
  return {
    path: guestToVfsPath(path, cwd),
    options: {
      ...(name === undefined ? {} : { name }),
      ...(version === undefined ? {} : { version }),
      ...(ttlSeconds === undefined ? {} : { ttlSeconds }),
    },
  };
}

/** Parses `publish` argv; a string is a usage error (or the help text). */
function parseArgs(args: string[]): { options: PublishRequest; json: boolean } | string {
  const options: PublishRequest = { path: "" };
  let json = false;
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? "";
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    if (flag === "-h" || flag === "--help") return USAGE;
    if (flag === "--json") {
      json = true;
      continue;
    }
    if (flag === "--name" || flag === "--version" || flag === "--ttl") {
      const value = inline ?? args[++i];
      if (value === undefined) return `publish: ${flag} needs a value\n`;
      if (flag === "--name") options.name = value;
      else if (flag === "--version") options.version = value;
      else if (/^\d{1,12}$/.test(value)) options.ttlSeconds = Number(value);
      else return "publish: --ttl takes a number of seconds\n";
      continue;
    }
    if (flag.startsWith("-") && flag !== "-") return `publish: unknown option '${flag}'\n${USAGE}`;
    paths.push(arg);
  }
  const [path, ...extra] = paths;
  if (path === undefined || extra.length > 0) return USAGE;
  return { options: { ...options, path }, json };
}

/** The ArtifactPublisher of the computer in `host`. */
export function artifactPublisher(host: ComputerContext): ArtifactPublisher {
  const run = (request: unknown, cwd: string): Promise<PublishedArtifact> => {
    const { path, options } = fromRequest(request, cwd);
    return publish(host, path, options);
  };
  return {
    publish: (request) => run(request, WORKSPACE),
    async command(args, cwd) {
      const parsed = parseArgs(args);
      if (typeof parsed === "string") {
        const help = parsed === USAGE && (args.includes("--help") || args.includes("-h"));
        return help
          ? { exitCode: 0, stdout: USAGE, stderr: "" }
          : { exitCode: 2, stdout: "", stderr: parsed };
      }
      try {
        const published = await run(parsed.options, cwd);
        if (parsed.json)
          return { exitCode: 0, stdout: `${JSON.stringify(published, null, 2)}\n`, stderr: "" };
        const files = `${published.files.length} file${published.files.length === 1 ? "" : "s"}`;
        return {
          exitCode: 0,
          stdout: `${published.url}\n`,
          stderr: `published ${published.name}@${published.version} (${files}, ${published.bytes} bytes, link expires ${published.expiresAt})\n`,
        };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        return { exitCode: 1, stdout: "", stderr: `publish: ${message}\n` };
      }
    },
  };
}
