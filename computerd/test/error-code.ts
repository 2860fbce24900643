/** What `fn` throws, as its POSIX-like code ("ENOSPC"), or "OK" when it returns. */
export function errorCode(fn: () => unknown): string {
  try {
    fn();
    return "OK";
  } catch (err) {
    return (err as { code?: string }).code ?? String(err);
  }
}
