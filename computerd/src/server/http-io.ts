/**
 * Small node:http helpers: JSON answers and errors in the shape of docs/API.md, and a
 * bounded JSON body reader.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { type ApiErrorCode, HTTP_STATUS } from "@computer/sdk/errors";
import { isFsError } from "@computer/vfs";

/** Codes computerd answers with: those of the API's one table (`@computer/sdk/errors`). */
export type HttpErrorCode = ApiErrorCode;

/** An error to answer with: a code (mapped to a status) and a message. */
export class HttpError extends Error {
  readonly code: HttpErrorCode;
  constructor(code: HttpErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** Writes `body` as JSON. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
}

/** Writes `{ error: { code, message } }` for an HttpError, an FsError, or anything else (500). */
export function sendError(res: ServerResponse, error: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (error instanceof HttpError || isFsError(error)) {
    const code: HttpErrorCode = error.code;
    sendJson(res, HTTP_STATUS[code], { error: { code, message: error.message } });
    return;
  }
  sendJson(res, 500, {
    error: { code: "EIO", message: error instanceof Error ? error.message : String(error) },
  });
}

/** Reads a JSON body of at most `limit` bytes. Malformed JSON → EINVAL, too long → EFBIG. */
export async function readJson(req: IncomingMessage, limit = 16 * 1024 * 1024): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError("EFBIG", `request body over ${limit} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new HttpError("EINVAL", "malformed JSON");
  }
}
