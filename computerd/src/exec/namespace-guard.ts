/**
 * Keeps a command in the network namespace it was put in when it runs without a sandbox as root
 * (the production container under an allow-list: sandbox-network.ts with `unshare`). Root with
 * every capability could simply join the daemon's network again (`nsenter --net=/proc/1/ns/net`)
 * or ptrace the daemon and connect from there; `setpriv` drops those capabilities from the
 * command's bounding set, for it and everything it starts. Root keeps the rest (files, users,
 * apt-get): what it loses is mount/setns (sys_admin), ptrace, network configuration, kernel
 * modules, raw devices, BPF and file handles (dac_read_search).
 */
import type { CommandWrapper } from "./wrapper.ts";

/** The capabilities a command under an allow-list gives up (setpriv's names). */
export const ESCAPE_CAPABILITIES = [
  "sys_admin",
  "sys_ptrace",
  "net_admin",
  "sys_module",
  "sys_rawio",
  "bpf",
  "perfmon",
  "dac_read_search",
] as const;

/** `inner` run through `setpriv --bounding-set -<each escape capability>`. */
export function withoutEscapeCapabilities(inner: CommandWrapper, setpriv = "setpriv"): CommandWrapper {
  const drop = ESCAPE_CAPABILITIES.map((name) => `-${name}`).join(",");
  return (input) => {
    const plan = inner(input);
    return { ...plan, argv: [setpriv, "--bounding-set", drop, "--", ...plan.argv] };
  };
}
