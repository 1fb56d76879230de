import { describe, expect, it } from "vitest";
import { localReturnPath } from "./return-path.js";

describe("localReturnPath", () => {
  it("keeps a path of the gateway with its query and fragment", () => {
    expect(localReturnPath("/#/projects/p1")).toBe("/#/projects/p1");
    expect(localReturnPath("/?x=1#/chats")).toBe("/?x=1#/chats");
  });

  it("sends anything naming another site, or no path at all, to the page's start (no open redirect)", () => {
    for (const value of ["//evil.example/x", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "", undefined, ["/a", "/b"]]) {
      expect(localReturnPath(value)).toBe("/");
    }
  });
});
