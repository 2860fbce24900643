/**
 * A fresh network namespace without bubblewrap (the production image has none): util-linux's
 * `unshare --net`, whose loopback starts down. bubblewrap brings it up itself; here Python (in
 * the image, and on every host that runs the toolbox) sets IFF_UP with the SIOCSIFFLAGS ioctl
 * and then execs the command, since Node cannot make that call and the image has no `ip`.
 */

/** Sets `lo` up (SIOCSIFFLAGS: IFF_UP | IFF_LOOPBACK | IFF_RUNNING), then execs argv[1:]. */
const LOOPBACK_UP = [
  "import fcntl, os, socket, struct, sys",
  "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)",
  'fcntl.ioctl(s, 0x8914, struct.pack("16sh22x", b"lo", 0x1 | 0x8 | 0x40))',
  "s.close()",
  "os.execv(sys.argv[1], sys.argv[1:])",
].join("\n");

/**
 * `command` (an absolute path first) in a network namespace of its own with only a loopback,
 * up. The namespace is owned by a new user namespace (root: root mapped to itself; otherwise the
 * daemon's user), whose root may set the loopback up even where the container's root lacks
 * CAP_NET_ADMIN (docker's default set). A root daemon's commands join only the network one, and
 * stay in the container's user namespace (sandbox-network.ts).
 */
export function unshareNetArgv(command: readonly string[]): [string, ...string[]] {
  const user = process.getuid?.() === 0 ? "--map-root-user" : "--map-current-user";
  return ["unshare", "--user", user, "--net", "--", "python3", "-c", LOOPBACK_UP, ...command];
}
