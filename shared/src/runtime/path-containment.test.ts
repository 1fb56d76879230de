import { describe, expect, it } from "vitest";
import { isInside, relativeInside } from "./path-containment.js";

describe("relativeInside", () => {
  it("compares on segments, not string prefixes (docs/security.md case 4)", () => {
    expect(isInside("/data/out", "/data/out-evil")).toBe(false);
    expect(isInside("/data/out", "/data/out/x")).toBe(true);
  });

  it("treats a name starting with two dots as inside (docs/security.md case 7)", () => {
    expect(relativeInside("/data/out", "/data/out/..foo")).toBe("..foo");
  });

  it("gives '' for the root itself and undefined for anything above it", () => {
    expect(relativeInside("/data/out", "/data/out")).toBe("");
    expect(relativeInside("/data/out", "/data")).toBeUndefined();
    expect(relativeInside("/data/out", "/etc/passwd")).toBeUndefined();
  });
});
