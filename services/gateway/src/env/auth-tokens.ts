/** A token → user name map from `AUTH_TOKENS` (`alice:s3cret,bob:other`). */
export type AuthTokens = ReadonlyMap<string, string>;

const userPattern = /^[A-Za-z0-9_.@-]{1,128}$/;

export function parseAuthTokens(text: string): { ok: true; value: AuthTokens } | { ok: false; error: string } {
  const tokens = new Map<string, string>();
  for (const [position, pair] of text.split(",").entries()) {
    const trimmed = pair.trim();
    const separator = trimmed.indexOf(":");
    const user = trimmed.slice(0, separator);
    const token = trimmed.slice(separator + 1);
    if (separator <= 0 || !userPattern.test(user)) return { ok: false, error: `entry ${position + 1} is not user:token` };
    if (token.length < 8) return { ok: false, error: `the token of ${user} is shorter than 8 characters` };
    if (tokens.has(token)) return { ok: false, error: `the token of ${user} is used twice` };
    tokens.set(token, user);
  }
  return { ok: true, value: tokens };
}
