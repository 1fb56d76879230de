import { describe, expect, it } from "vitest";
import { gitToken } from "./git-sign-in.js";

const basic = (credentials: string) => `Basic ${Buffer.from(credentials, "utf8").toString("base64")}`;

describe("the token of a git client's Authorization header", () => {
  it("takes a bearer token, and a Basic password whatever the user name (a credential helper's way)", () => {
    expect(gitToken("Bearer aop_abc")).toBe("aop_abc");
    expect(gitToken(basic("alice:aop_abc"))).toBe("aop_abc");
    expect(gitToken(basic("x-access-token:aop_abc"))).toBe("aop_abc");
    // a token with a colon in it stays whole: only the first colon ends the user name
    expect(gitToken(basic("alice:tok:en"))).toBe("tok:en");
  });

  it("takes a token given as the user name with an empty password, as some clients send it", () => {
    expect(gitToken(basic("aop_abc:"))).toBe("aop_abc");
    expect(gitToken(basic("aop_abc"))).toBe("aop_abc");
  });

  it("has no token without a header, and keeps any other header whole, to be refused as a wrong credential", () => {
    expect(gitToken(undefined)).toBeUndefined();
    expect(gitToken("Digest username=alice")).toBe("Digest username=alice");
  });
});
