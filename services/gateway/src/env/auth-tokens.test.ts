import { describe, expect, it } from "vitest";
import { parseAuthTokens } from "./auth-tokens.js";

describe("parseAuthTokens", () => {
  it("maps each token to its user", () => {
    const parsed = parseAuthTokens("alice:s3cret-token, bob:other-token");
    expect(parsed.ok && [...parsed.value]).toEqual([
      ["s3cret-token", "alice"],
      ["other-token", "bob"],
    ]);
  });

  it("rejects entries without a user, short tokens and reused tokens, without echoing a token", () => {
    for (const text of [":tokentoken", "alice", "alice:short", "a:same-token,b:same-token"]) {
      const parsed = parseAuthTokens(text);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.error).not.toMatch(/tokentoken|same-token/);
    }
  });
});
