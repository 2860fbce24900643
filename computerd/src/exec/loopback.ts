/**
 * Connecting to a port on the loopback of the network namespace the caller runs in: IPv4
 * first, then IPv6 (dev servers that listen on `localhost` often bind ::1 only). The error
 * of a refused port keeps its code (ECONNREFUSED).
 */
import { connect, type Socket } from "node:net";

/** How long a connect to the loopback may take before it fails with ETIMEDOUT. */
export const LOOPBACK_CONNECT_TIMEOUT_MS = 5_000;

function connectTo(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    // Paused before it connects, so its descriptor is never read until the caller resumes it:
    // a socket handed to another process must not have had bytes read (and lost) here.
    socket.pause();
    const timer = setTimeout(() => {
      socket.destroy();
      reject(Object.assign(new Error(`connect ${host}:${port} timed out`), { code: "ETIMEDOUT" }));
    }, LOOPBACK_CONNECT_TIMEOUT_MS);
    socket.once("connect", () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/**
 * A socket connected to `port` on 127.0.0.1, or on ::1 when nothing listens on IPv4. It comes
 * paused: nothing is read from it until the caller resumes it (or reads it).
 */
export async function connectLoopback(port: number): Promise<Socket> {
  try {
    return await connectTo("127.0.0.1", port);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ECONNREFUSED" && code !== "EADDRNOTAVAIL") throw error;
    try {
      return await connectTo("::1", port);
    } catch {
      throw error;
    }
  }
}

/** Opens connections to ports of the network commands run in. */
export interface PortConnector {
  /** A socket connected to `port`; rejects with the system's error (code ECONNREFUSED etc.). */
  connect(port: number): Promise<Socket>;
}

/** Commands share the daemon's own network (the container, `--sandbox none`, egress `all`). */
export const ownLoopback: PortConnector = { connect: connectLoopback };
