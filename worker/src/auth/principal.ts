/**
 * Who is calling: the operator (admin token) or the holder of one computer's token.
 * The router builds it from the bearer token; the Computer DO decides what it may do.
 */

/** What a computer token allows: reads only, or reads and writes. */
export type TokenScope = "ro" | "rw";

/** The authenticated caller, as passed from the router to the Computer DO over RPC. */
export type Principal =
  | { kind: "admin" }
  | {
      kind: "token";
      /** The one computer the token is valid for. */
      computer: string;
      scope: TokenScope;
      /** The computer's token generation when the token was issued; revocation changes it. */
      nonce: string;
    };

/** True for the two scope strings. */
export function isTokenScope(value: unknown): value is TokenScope {
  return value === "ro" || value === "rw";
}
