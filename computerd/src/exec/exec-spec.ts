/**
 * Checking and completing an exec request (untrusted: it comes from HTTP or the link):
 * the id, the command, the directory, the environment, stdin and the limits.
 */
import { randomUUID } from "node:crypto";
import { posix } from "node:path";
import { FsError } from "@computer/vfs";
import { validateEnv } from "./env.ts";

/** Limits that apply when a request names none, and the most it may ask for. */
export interface ExecDefaults {
  /** Directory a command starts in when none is given; relative `cwd`s are resolved against it. */
  cwd: string;
  /** Timeout when none is given. */
  timeoutMs: number;
  /** Longest timeout a request may ask for. */
  maxTimeoutMs: number;
  /** Output cap (bytes, both streams) when none is given, and the largest allowed. */
  outputCap: number;
}

/** A checked request, every field filled in. */
export interface ExecPlan {
  id: string;
  command: string;
  cwd: string;
  env: Record<string, string>;
  stdin: string | undefined;
  /** Undefined: no timeout (a detached command that asked for none). */
  timeoutMs: number | undefined;
  outputCap: number;
  /** A background process (ExecSpec.detached). */
  detached: boolean;
}

const ID = /^[A-Za-z0-9_-]{1,128}$/;

/** A fresh exec id: `ex_` and 32 hex digits. */
export function newExecId(): string {
  return `ex_${randomUUID().replaceAll("-", "")}`;
}

function invalid(message: string): FsError {
  return new FsError("EINVAL", "exec", undefined, message);
}

function positive(value: unknown, name: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw invalid(`${name} must be a positive number`);
  }
  return value;
}

/**
 * Checks `input` (an ExecSpec-shaped object from an untrusted caller) and fills in the
 * defaults. Throws FsError EINVAL naming the first bad field.
 */
export function planExec(input: unknown, defaults: ExecDefaults): ExecPlan {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    throw invalid("request must be an object");
  const spec = input as Record<string, unknown>;
  const { id, command, cwd, stdin } = spec;
  if (id !== undefined && (typeof id !== "string" || !ID.test(id))) {
    throw invalid("id must be 1-128 characters of [A-Za-z0-9_-]");
  }
  if (typeof command !== "string" || command === "") throw invalid("command must be a non-empty string");
  if (command.includes("\0")) throw invalid("command contains NUL");
  if (cwd !== undefined && (typeof cwd !== "string" || cwd === "" || cwd.includes("\0"))) {
    throw invalid("cwd must be a non-empty string without NUL");
  }
  if (stdin !== undefined && typeof stdin !== "string") throw invalid("stdin must be a string");
  const { detached = false } = spec;
  if (typeof detached !== "boolean") throw invalid("detached must be a boolean");
  const asked = positive(spec.timeoutMs, "timeoutMs");
  const timeoutMs = asked ?? (detached ? undefined : defaults.timeoutMs);
  const outputCap = positive(spec.outputCap, "outputCap") ?? defaults.outputCap;
  return {
    id: id ?? newExecId(),
    command,
    cwd: posix.resolve(defaults.cwd, cwd ?? "."),
    env: validateEnv(spec.env),
    stdin,
    // A detached command's own timeout is the caller's to choose (the DO caps it).
    timeoutMs:
      timeoutMs === undefined || detached ? timeoutMs : Math.min(Math.ceil(timeoutMs), defaults.maxTimeoutMs),
    outputCap: Math.max(1, Math.min(Math.floor(outputCap), defaults.outputCap)),
    detached,
  };
}
