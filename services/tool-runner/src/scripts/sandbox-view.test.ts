import { describe, expect, it } from "vitest";
import { argumentInside, virtualizeText, type SandboxView } from "./sandbox-view.js";

// `{session-folder}` is a lexical path that never exists on disk (the sandbox module's pseudo root)
const session = "/\u0000sessions/s1";
const view: SandboxView = {
  projectRoot: "/srv/project",
  sessionFolder: session,
  readOnly: [{ host: "/srv/project/_bmad", inside: "/sandbox/project/_bmad" }],
  scratch: [{ relative: "_bmad/render", sessionRelative: ".bmad-scratch/_bmad/render" }],
};
const roots = {
  project: "/srv/project",
  core: "/srv/project/bmad/core",
  session,
  outputs: { output_folder: "/srv/project/_bmad-output", planning_artifacts: "/srv/project/_bmad-output/planning-artifacts" },
};

describe("argumentInside", () => {
  it.each([
    ["{session-folder}/prd-run", "/sandbox/session/prd-run"],
    ["{output_folder}", "/sandbox/project/_bmad-output"],
    ["{planning_artifacts}/prd.md", "/sandbox/project/_bmad-output/planning-artifacts/prd.md"],
    ["{project-root}/docs/prd.md", "/sandbox/project/docs/prd.md"],
    ["{project-root}/_bmad/config.toml", "/sandbox/project/_bmad/config.toml"],
    ["--out={session-folder}/x.html", "--out=/sandbox/session/x.html"],
    ["topic=A {session-folder} B", "topic=A {session-folder} B"],
    ["plain text", "plain text"],
    ["/etc/passwd", "/etc/passwd"],
  ])("%j → %j", (word, expected) => {
    expect(argumentInside(view, roots, word)).toBe(expected);
  });

  it("refuses an unknown variable and one that leaves its folder", () => {
    expect(() => argumentInside(view, roots, "{skill-root}/x")).toThrow(expect.objectContaining({ code: "UNRESOLVED_VARIABLE" }));
    expect(() => argumentInside(view, roots, "{session-folder}/../s2")).toThrow(expect.objectContaining({ code: "PATH_OUTSIDE_ROOT" }));
    expect(() => argumentInside(view, roots, "{project-root}/../etc")).toThrow(expect.objectContaining({ code: "PATH_OUTSIDE_ROOT" }));
  });
});

describe("virtualizeText", () => {
  it("names inside and host paths as the model does, scratch places as their session folder", () => {
    const text = [
      "/sandbox/session/prd-run/.memlog.md",
      "/sandbox/project/_bmad/render/bmad-build/workflow.md",
      "/sandbox/project/_bmad/scripts/memlog.py",
      "/srv/project/y",
      "/sandbox/session2 and /sandbox/projects stay",
    ].join("\n");
    expect(virtualizeText(view, text)).toBe(
      [
        "{session-folder}/prd-run/.memlog.md",
        "{session-folder}/.bmad-scratch/_bmad/render/bmad-build/workflow.md",
        "{project-root}/_bmad/scripts/memlog.py",
        "{project-root}/y",
        "/sandbox/session2 and /sandbox/projects stay",
      ].join("\n"),
    );
  });
});
