/**
 * A computer's files as MCP resources: `computer://<id>/<path>`, listed (regular files, walked
 * from the root up to a bound) and read (text, or base64 for binary files, up to the output cap;
 * a larger file is an error that points to the `read` tool).
 */
import type { Computer } from "@computer/sdk";

/** Most files a resource listing names. */
const LIST_LIMIT = 500;

/** The resource URI of `path` in computer `id`. */
export function resourceUri(id: string, path: string): string {
  return `computer://${id}/${path.replace(/^\//, "").split("/").map(encodeURIComponent).join("/")}`;
}

/** The workspace path of `uri` if it names a file of computer `id`. */
export function resourcePath(id: string, uri: string): string | undefined {
  const prefix = `computer://${id}/`;
  if (!uri.startsWith(prefix)) return undefined;
  try {
    return uri.slice(prefix.length).split("/").map(decodeURIComponent).join("/");
  } catch {
    return undefined;
  }
}

/** Up to LIST_LIMIT regular files of the computer, breadth first. */
export async function listResources(
  computer: Computer,
): Promise<{ uri: string; name: string; mimeType?: string; size?: number }[]> {
  const out: { uri: string; name: string; size: number }[] = [];
  const queue = [""];
  while (queue.length > 0 && out.length < LIST_LIMIT) {
    const dir = queue.shift() ?? "";
    for await (const entry of computer.files.entries(dir)) {
      const path = dir === "" ? entry.name : `${dir}/${entry.name}`;
      if (entry.type === "dir") queue.push(path);
      else if (entry.type === "file")
        out.push({ uri: resourceUri(computer.id, path), name: path, size: entry.size });
      if (out.length >= LIST_LIMIT) break;
    }
  }
  return out;
}

/** One file as resource contents: text when it holds no NUL byte, else base64. */
export async function readResource(
  computer: Computer,
  uri: string,
  maxBytes: number,
): Promise<{ uri: string; text?: string; blob?: string; mimeType: string }> {
  const path = resourcePath(computer.id, uri);
  if (path === undefined) throw new Error(`EINVAL: not a resource of computer ${computer.id}: ${uri}`);
  const head = await computer.files.head(path);
  if (head.type !== "file") throw new Error(`EISDIR: not a file: ${path}`);
  if (head.size > maxBytes) {
    throw new Error(
      `EFBIG: ${path} has ${head.size} bytes, over the ${maxBytes}-byte cap: use the read tool with offset/limit`,
    );
  }
  const bytes = await computer.files.read(path);
  if (!bytes.includes(0)) {
    return { uri, mimeType: "text/plain", text: new TextDecoder().decode(bytes) };
  }
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return { uri, mimeType: "application/octet-stream", blob: btoa(binary) };
}
