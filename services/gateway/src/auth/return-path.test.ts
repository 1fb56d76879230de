import { describe, expect, it } from "vitest";
import { localReturnPath } from "./return-path.js";

/** Where a browser goes with `Location: <path>` from the gateway. */
const destination = (path: string): string => new URL(path, "https://agents.example.com/auth/callback").origin;

describe("localReturnPath", () => {
  it("keeps a path of the gateway with its query and fragment", () => {
    expect(localReturnPath("/#/projects/p1")).toBe("/#/projects/p1");
    expect(localReturnPath("/?x=1#/chats")).toBe("/?x=1#/chats");
    expect(localReturnPath("/a/../b")).toBe("/b");
  });

  it("sends anything naming another site, or no path at all, to the page's start (no open redirect)", () => {
    for (const value of ["//evil.example/x", "/\\evil.example", "https://evil.example/", "javascript:alert(1)", "", undefined, ["/a", "/b"]]) {
      expect(localReturnPath(value)).toBe("/");
    }
  });

  it("case 263: checks the path it returns, not only the one it was given: dot segments, encoded dots, backslashes, tabs and newlines never end in //host", () => {
    const attacks = [
      "/.//evil.example",
      "/%2e%2e//evil.example",
      "/%2E%2E//evil.example",
      "/a/..//evil.example",
      "/a/%2e%2e//evil.example",
      "/./\\evil.example",
      "/.\\/evil.example",
      "/%2e/\\evil.example",
      "/\\/evil.example",
      "/\\\\evil.example",
      "/\t/evil.example",
      "/\n/evil.example",
      "/.\t//evil.example",
      "/\r\n/evil.example",
      "/%5cevil.example",
      "/%5c%5cevil.example",
      "/%2f%2fevil.example",
      "/./%2f/evil.example",
    ];
    for (const attack of attacks) {
      const path = localReturnPath(attack);
      expect({ attack, origin: destination(path) }).toEqual({ attack, origin: "https://agents.example.com" });
      expect(path, attack).toMatch(/^\/(?![/\\])/);
      expect(path, attack).not.toMatch(/[\u0000-\u001f\u007f]/);
    }
    expect(localReturnPath("/.//evil.example")).toBe("/");
    expect(localReturnPath("/%2e%2e//evil.example")).toBe("/");
    expect(localReturnPath("/a/..//evil.example")).toBe("/");
  });
});
