/**
 * The shell's commands that reach past the guest: `git` (isomorphic-git on the computer's
 * files) and `publish` (artifacts), both run by the DO's trusted services (GuestServicesApi)
 * with the shell's cwd, and `html-to-markdown`, whose conversion the DO runs.
 */
import type { Command, ExecResult, ResolvedCommandContext } from "just-bash";
import { defineCommand } from "just-bash/browser";
import type { GuestCommandResult, GuestServicesApi } from "../guest-hosting/guest-wire.ts";
import { type RecordedConversion, recordConversions } from "./host-turndown.ts";

function failure(name: string, err: unknown): GuestCommandResult {
  const message = err instanceof Error ? err.message : String(err);
  return { exitCode: 1, stdout: "", stderr: `${name}: ${message}\n` };
}

/**
 * `html-to-markdown`: just-bash's own command (its options, stdin or FILE, errors and input
 * limits) with a converter that only records (host-turndown.ts), then the conversion in the DO.
 * The output as just-bash's: the Markdown trimmed, one newline, a conversion error on stderr;
 * Markdown past the output limit fails the command (just-bash's own ends the script there).
 */
async function htmlToMarkdown(
  services: GuestServicesApi,
  args: string[],
  ctx: ResolvedCommandContext,
): Promise<ExecResult> {
  const original = ctx.origCommand;
  if (original === undefined) return failure("html-to-markdown", "just-bash's command is missing");
  const recorded: RecordedConversion = {};
  const result = await recordConversions(recorded, () => original(args));
  // --help, a bad option, a missing file, empty input: just-bash answered without converting.
  if (recorded.request === undefined || result.exitCode !== 0) return result;
  const maxOutputBytes = Math.min(ctx.limits.maxStringLength, ctx.limits.maxOutputSize);
  try {
    const converted = await services.htmlToMarkdown({ ...recorded.request, maxOutputBytes });
    if (!converted.ok && converted.error.code === "EFBIG")
      return failure("html-to-markdown", `output size limit exceeded (${maxOutputBytes} bytes)`);
    if (!converted.ok) return failure("html-to-markdown", `conversion error: ${converted.error.message}`);
    return { stdout: `${String(converted.value)}\n`, stderr: "", exitCode: 0 };
  } catch (err) {
    return failure(
      "html-to-markdown",
      `conversion error: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
}

/** `git`, `publish` and `html-to-markdown` over `services`. */
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
    defineCommand("html-to-markdown", (args, ctx) => htmlToMarkdown(services, args, ctx)),
  ];
}
