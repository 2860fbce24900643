/**
 * The HMAC key that signs computer tokens, derived from the admin token with HKDF-SHA-256,
 * so the deployment has one secret. Rotating COMPUTER_ADMIN_TOKEN therefore invalidates
 * every computer token ever issued.
 */

const encoder = new TextEncoder();
const SALT = encoder.encode("computer/token-signing-key");
const INFO = encoder.encode("computer token v1 hmac-sha-256");

let cached: { secret: string; key: Promise<CryptoKey> } | undefined;

/** The token-signing key for `adminToken` (memoised per isolate for the current secret). */
export function signingKey(adminToken: string): Promise<CryptoKey> {
  if (cached?.secret === adminToken) return cached.key;
  const key = (async () => {
    const material = await crypto.subtle.importKey("raw", encoder.encode(adminToken), "HKDF", false, [
      "deriveKey",
    ]);
    return crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: SALT, info: INFO },
      material,
      { name: "HMAC", hash: "SHA-256", length: 256 },
      false,
      ["sign", "verify"],
    );
  })();
  cached = { secret: adminToken, key };
  return key;
}
