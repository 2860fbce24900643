/**
 * The shell's commands that reach past the filesystem: `git` (isomorphic-git on the computer's
 * files) and `publish` (artifacts), both run by the DO's trusted services (GuestServicesApi)
 * with the shell's cwd.
 */
import type { Command } from "just-bash";
import { defineCommand } from "just-bash/browser";
import type { GuestCommandResult, GuestServicesApi } from "../guest-hosting/guest-wire.ts";

function failure(name: string, err: unknown): GuestCommandResult {
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: 1, stdout: "", stderr: `${name}: ${message}\n` };
}

/** `git` and `publish` over `services`. */
export function serviceCommands(services: GuestServicesApi): Command[] {
  return [
    defineCommand("git", async (args, ctx) => {
      try {
        return await services.gitCommand(args, ctx.cwd);
      } catch (err) {
        return failure("git", err);
      }
    }),
    defineCommand("publish", async (args, ctx) => {
      try {
        return await services.publishCommand(args, ctx.cwd);
      } catch (err) {
        return failure("publish", err);
      }
    }),
  ];
}
