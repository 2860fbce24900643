/**
 * Pulumi mocks for the component tests: every `newResource` is recorded with its type, name,
 * inputs and (through a transformation on the component) its parent; outputs echo the inputs,
 * plus what a provider would compute (a random password, a command's stdout).
 */
import * as pulumi from "@pulumi/pulumi";

/** One registered resource as the mocks saw it. */
export interface Recorded {
  type: string;
  name: string;
  /** Inputs as sent to the engine: secrets are wrapped (see isSecretInput). */
  inputs: Record<string, unknown>;
  /** The parent resource given in the options (`undefined` for a top-level resource). */
  parent: pulumi.Resource | undefined;
}

/** Pulumi's marker of a secret value in serialized inputs. */
const SECRET_SIG = "4dabf18193072939515e22adb298388d";
const SECRET_VALUE = "1b47061264138c4ac30d75fd1eb44270";

/** True if `value` is a serialized secret. */
export function isSecretInput(value: unknown): value is { value: unknown } {
  return (
    typeof value === "object" &&
    value !== null &&
    (value as Record<string, unknown>)[SECRET_SIG] === SECRET_VALUE
  );
}

/** The plain value of a serialized input, secret or not. */
export function plain(value: unknown): unknown {
  return isSecretInput(value) ? value.value : value;
}

/** What the mocked local commands print. */
export const DEPLOY_STDOUT = "Uploaded fleet\nDeployed fleet triggers\n  https://fleet.team.workers.dev\n";
export const IMAGE_TAG = "computer/computerd:0123456789abcdef";
export const BENCH_REPORT = '{"schema":"computer.fs-bench/1"}';
export const RANDOM_TOKEN = "r".repeat(48);
/** A Cloudflare account id and an SSH private key of the right shapes. */
export const ACCOUNT = "0123456789abcdef0123456789abcdef";
export const SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbg==\n-----END OPENSSH PRIVATE KEY-----\n";

const registered: Map<string, Recorded> = new Map();
const parents: Map<string, pulumi.Resource | undefined> = new Map();

function stdoutOf(name: string): string {
  if (name.endsWith("-bench-image")) return IMAGE_TAG;
  if (name.endsWith("-bench-run")) return BENCH_REPORT;
  if (name.endsWith("-worker")) return DEPLOY_STDOUT;
  return "";
}

/** Installs the mocks (await it before importing the component). */
export async function installMocks(): Promise<void> {
  await pulumi.runtime.setMocks(
    {
      newResource(args) {
        registered.set(args.name, {
          type: args.type,
          name: args.name,
          inputs: args.inputs as Record<string, unknown>,
          parent: parents.get(`${args.type}::${args.name}`),
        });
        const state: Record<string, unknown> = { ...args.inputs };
        if (args.type === "random:index/randomPassword:RandomPassword") state.result = RANDOM_TOKEN;
        if (args.type.startsWith("command:")) state.stdout = stdoutOf(args.name);
        return { id: `${args.name}-id`, state };
      },
      call: (args) => args.inputs,
    },
    "computer",
    "test",
    false,
  );
}

/**
 * A transformation that records each child's parent; pass it in the component's options
 * (transformations reach every descendant).
 */
export const recordParents: pulumi.ResourceTransformation = (args) => {
  parents.set(`${args.type}::${args.name}`, args.opts.parent);
  return undefined;
};

/** Resolves with the resources named `names` once all are registered (fails after 10 s). */
export async function waitFor(names: readonly string[]): Promise<Map<string, Recorded>> {
  const deadline = Date.now() + 10_000;
  while (names.some((name) => !registered.has(name))) {
    if (Date.now() > deadline) {
      const missing = names.filter((name) => !registered.has(name));
      throw new Error(
        `not registered: ${missing.join(", ")}; registered: ${[...registered.keys()].join(", ")}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return new Map(names.map((name) => [name, registered.get(name) as Recorded]));
}

/** The resource `name` of what waitFor resolved with (throws when it is not there). */
export function pick(found: ReadonlyMap<string, Recorded>, name: string): Recorded {
  const recorded = found.get(name);
  if (recorded === undefined) throw new Error(`no ${name}`);
  return recorded;
}

/** Every resource registered so far whose name starts with `prefix`. */
export function registeredWithPrefix(prefix: string): string[] {
  return [...registered.keys()].filter((name) => name.startsWith(prefix)).sort();
}

/** The value of an Output (unwrapping secrets) and whether it is secret. */
export async function resolveOutput<T>(output: pulumi.Output<T>): Promise<{ value: T; secret: boolean }> {
  const value = await new Promise<T>((resolve) => output.apply(resolve));
  return { value, secret: await pulumi.isSecret(output) };
}
