import { describe, expect, it } from "vitest";
import { startFilePath } from "./start-fingerprint.js";

describe("startFilePath", () => {
  it("places each root as the tool-runner does: the bundle, its tree's core (.bmad-core for 4.x), the project", () => {
    expect(startFilePath("{bundle-root}/config.yaml", "bmad/custom/bundles/solo")).toBe("bmad/custom/bundles/solo/config.yaml");
    expect(startFilePath("{core-root}/config.yaml", "_bmad/bmm")).toBe("_bmad/core/config.yaml");
    expect(startFilePath("{core-root}/core-config.yaml", ".bmad-creative-writing")).toBe(".bmad-core/core-config.yaml");
    expect(startFilePath("{project-root}/.bmad-core/core-config.yaml", ".bmad-core")).toBe(".bmad-core/core-config.yaml");
  });

  it("gives nothing for a file outside the BMAD trees the registry watches", () => {
    expect(startFilePath("{project-root}/docs/x.md", "_bmad/bmm")).toBeUndefined();
    expect(startFilePath("{bundle-root}/../../../../etc/passwd", "bmad/custom/bundles/solo")).toBeUndefined();
    expect(startFilePath("{project-root}/../outside/config.yaml", "_bmad/bmm")).toBeUndefined();
  });
});
