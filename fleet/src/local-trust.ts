/**
 * For a fleet on this machine (`make dev`): this machine's extra TLS trust, handed to commands
 * in the computer's container, so that npm there trusts what npm here trusts — e.g. the CA of a
 * TLS-inspecting proxy on the way to the registry. The container has its own root filesystem,
 * so the certificates travel as a file in the computer. A fleet elsewhere gets nothing.
 */
import { existsSync, readFileSync } from "node:fs";
import type { Computer } from "@computer/sdk";

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "[::1]"]);
const TRUST_FILE = ".local-trust/extra-ca.pem";

/** The environment that gives `computer`'s commands NODE_EXTRA_CA_CERTS, or `{}` when there is none to give. */
export async function localTrust(
  computer: Computer,
  apiUrl: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Record<string, string>> {
  const extra = env.NODE_EXTRA_CA_CERTS;
  if (!LOCAL_HOSTS.has(new URL(apiUrl).hostname) || !extra || !existsSync(extra)) return {};
  await computer.files.write(TRUST_FILE, readFileSync(extra));
  return { NODE_EXTRA_CA_CERTS: `/workspace/${TRUST_FILE}` };
}
