import { describe, expect, it } from "vitest";
import { assertPathShape } from "./path-shape.js";

function codeOf(input: unknown): string | undefined {
  try {
    assertPathShape(input);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe("assertPathShape", () => {
  it("accepts ordinary paths, including a name that starts with two dots (docs/security.md case 7)", () => {
    for (const input of ["{bundle-root}/config.yaml", "a/../b.txt", "..foo", "notes/2025-01-01 plan.md", "/abs/inside.md"]) {
      expect(codeOf(input)).toBeUndefined();
    }
  });

  it("rejects empty and non-string paths (docs/security.md case 8)", () => {
    for (const input of ["", "   ", undefined, 42, null]) expect(codeOf(input)).toBe("INVALID_PATH");
  });

  it("rejects a NUL byte before any fs call (docs/security.md case 9)", () => {
    expect(codeOf("foo\u0000.txt")).toBe("INVALID_PATH");
  });

  it("rejects backslashes (docs/security.md case 11)", () => {
    expect(codeOf("..\\..\\etc\\passwd")).toBe("INVALID_PATH");
  });

  it("rejects Windows drive and UNC forms (docs/security.md case 12)", () => {
    for (const input of ["C:\\Windows\\win.ini", "C:foo", "\\\\srv\\share\\x", "\\\\?\\C:\\x"]) {
      expect(codeOf(input)).toBe("INVALID_PATH");
    }
  });

  it("rejects reserved device names and trailing dots or spaces (docs/security.md case 13)", () => {
    for (const input of ["CON", "nul.txt", "out/a.txt.", "a.txt ", "lpt1"]) expect(codeOf(input)).toBe("INVALID_PATH");
  });

  it("rejects bidi overrides and other control characters in a name (docs/security.md case 14)", () => {
    for (const input of ["evil\u202Etxt.md", "a\u2066b", "line\nbreak", "bell\u0007"]) expect(codeOf(input)).toBe("INVALID_PATH");
  });

  it("treats fullwidth dots and slashes as literal characters (docs/security.md case 14)", () => {
    expect(codeOf("．．／etc")).toBeUndefined();
  });

  it("rejects a 256-byte segment as NAME_TOO_LONG and a 5,000-char path as INVALID_PATH (docs/security.md case 15)", () => {
    expect(codeOf(`dir/${"a".repeat(256)}`)).toBe("NAME_TOO_LONG");
    expect(codeOf(`dir/${"é".repeat(128)}`)).toBe("NAME_TOO_LONG");
    expect(codeOf("a/".repeat(2500))).toBe("INVALID_PATH");
  });

  it("never URL-decodes (docs/security.md case 10)", () => {
    expect(codeOf("%2e%2e/%2e%2e/etc/passwd")).toBeUndefined();
  });
});
