/**
 * Bearer authentication of computerd's HTTP routes: the Durable Object's secret, compared in
 * constant time (over SHA-256 digests, so neither length nor content leaks through timing).
 */
import { createHash, timingSafeEqual } from "node:crypto";

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** A checker for `Authorization` header values against one secret. */
export function bearerAuth(secret: string): (authorization: string | undefined) => boolean {
  const expected = digest(secret);
  return (authorization) => {
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? "");
    // Hash something even without a token, so a missing header costs the same as a wrong one.
    const given = digest(match?.[1] ?? "");
    return timingSafeEqual(given, expected) && match !== null;
  };
}
