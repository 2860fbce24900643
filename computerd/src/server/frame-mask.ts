/**
 * The masking key of the dial-back link's frames. RFC 6455 has a client XOR every byte it sends
 * with a random key so that a proxy on the path which does not understand WebSocket cannot be
 * fed attacker-chosen bytes that look like HTTP (cache poisoning). Where no such proxy can read
 * the bytes (TLS, or the loopback interface) the key does nothing but cost: the `ws` client
 * copies each message into a new buffer and XORs it in a JavaScript byte loop (no `bufferutil`),
 * ~100 MiB of chunk bytes per 100 MiB a command writes. With an all-zero key `ws` sends the
 * message as it is (its `generateMask` option; the frame still says it is masked, so the server
 * reads it the same way).
 */

/** Hosts that are this machine: nothing between us and the peer. */
function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** True when frames to the ws(s) `url` cannot be read by a proxy on the way (TLS or loopback). */
export function unreadableOnTheWay(url: string): boolean {
  const parsed = new URL(url);
  return parsed.protocol === "wss:" || isLoopback(parsed.hostname);
}

/** Fills a frame's masking key with zeros (`ws` then leaves the bytes as they are). */
function zeroMask(mask: Uint8Array): void {
  mask.fill(0);
}

/** The `ws` client options of the link's masking for `url`: a zero key where it protects nothing, else ws's random one. */
export function frameMaskOptions(url: string): { generateMask?: (mask: Uint8Array) => void } {
  return unreadableOnTheWay(url) ? { generateMask: zeroMask } : {};
}
