/**
 * Sending one binary WebSocket message in pieces over the `ws` client: each piece a fragment
 * (RFC 6455 5.4), the last with FIN. The dial-back link sends a frame this way as its header
 * and its byte strings as they are, instead of copying them into one buffer first: 100 MiB of
 * copies, and of fresh memory for V8 to count, per 100 MiB a command writes.
 */
import type { WebSocket as WsClient } from "ws";

/**
 * Sends `parts` as one binary message, in order; `ws` queues them in this turn, so no other
 * message goes between them. The peer (workerd, `ws`) reassembles the message.
 */
export function sendFragments(socket: WsClient, parts: readonly Uint8Array[]): void {
  const last = parts.length - 1;
  parts.forEach((part, i) => {
    socket.send(part, { binary: true, fin: i === last });
  });
}
