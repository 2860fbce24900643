/**
 * HMAC keys derived from the admin token with HKDF-SHA-256, one per purpose, so the
 * deployment has one secret: computer tokens, artifact links and preview links. Rotating
 * COMPUTER_ADMIN_TOKEN therefore invalidates every token and every link ever issued.
 */

const encoder = new TextEncoder();

/** What a derived key signs; each purpose has its own HKDF salt and info, so keys never coincide. */
export type KeyPurpose = "token" | "artifact-link" | "preview-link";

const LABELS: Record<KeyPurpose, { salt: Uint8Array<ArrayBuffer>; info: Uint8Array<ArrayBuffer> }> = {
  token: {
    salt: encoder.encode("computer/token-signing-key"),
    info: encoder.encode("computer token v1 hmac-sha-256"),
  },
  "artifact-link": {
    salt: encoder.encode("computer/artifact-link-key"),
    info: encoder.encode("computer artifact link v1 hmac-sha-256"),
  },
  "preview-link": {
    salt: encoder.encode("computer/preview-link-key"),
    info: encoder.encode("computer preview link v1 hmac-sha-256"),
  },
};

const cached = new Map<KeyPurpose, { secret: string; key: Promise<CryptoKey> }>();

/** The HMAC-SHA-256 key for `purpose` under `adminToken` (memoised per isolate for the current secret). */
export function derivedKey(adminToken: string, purpose: KeyPurpose): Promise<CryptoKey> {
  const hit = cached.get(purpose);
  if (hit?.secret === adminToken) return hit.key;
  const { salt, info } = LABELS[purpose];
  const key = (async () => {
    const material = await crypto.subtle.importKey("raw", encoder.encode(adminToken), "HKDF", false, [
      "deriveKey",
    ]);
    return crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt, info },
      material,
      { name: "HMAC", hash: "SHA-256", length: 256 },
      false,
      ["sign", "verify"],
    );
  })();
  cached.set(purpose, { secret: adminToken, key });
  return key;
}

/** The token-signing key for `adminToken`. */
export function signingKey(adminToken: string): Promise<CryptoKey> {
  return derivedKey(adminToken, "token");
}
