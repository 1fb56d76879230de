import { describe, expect, it } from "vitest";
import { isServableName, isServablePath } from "./servable-name.js";

describe("isServableName (docs/security.md case 142)", () => {
  it("accepts the names the tools can open, including non-Latin ones and a leading `..`", () => {
    for (const name of ["brief.md", "2025-01-01 plan.md", "..foo", "é.md", "日本語.md", "{unclosed.md", "closed}.md", "a%2e.md"]) {
      expect(isServableName(name)).toBe(true);
    }
  });

  it("refuses controls (ESC, DEL, C1), bidi marks and overrides, `\\`, reserved device names, trailing dots and spaces, `{…}`", () => {
    for (const name of ["evil\u001b[31m.md", "del\u007f", "c1\u0085", "rtl\u202Etxt.md", "iso\u2066a", "lrm\u200e", "alm\u061c", "a\\b", "CON", "nul.txt", "a.", "a ", "{x}.md", "{{x}}"]) {
      expect(isServableName(name)).toBe(false);
    }
  });

  it("refuses what is not a single name, and a name over 255 bytes", () => {
    for (const name of ["", ".", "..", "a/b", "é".repeat(128)]) expect(isServableName(name)).toBe(false);
  });
});

describe("isServablePath (docs/security.md case 142)", () => {
  it("accepts a virtual path with a leading root variable and plain names", () => {
    expect(isServablePath("{session-folder}/notes/brief.md")).toBe(true);
  });

  it("refuses a path with a refused character in any segment, or a `{…}` past its start", () => {
    for (const path of ["{session-folder}/evil\u001b.md", "{session-folder}/d\u202e/a.md", "{session-folder}/{x}/a.md", "{session-folder}/a./b", "{session-folder}/a\\b"]) {
      expect(isServablePath(path)).toBe(false);
    }
  });
});
