import { describe, expect, it } from "vitest";
import { canonicalVirtualPath, resolveVirtualPath, toVirtualPath, type LexicalRoots } from "./virtual-path.js";

// Roots that do not exist: resolution is lexical, so these tests also show that no fs call is made.
const roots: LexicalRoots = {
  project: "/nonexistent/W",
  bundle: "/nonexistent/W/bmad/custom/bundles/studio",
  core: "/nonexistent/W/bmad/core",
  // a chat's scratch space is never on disk: its lexical path is a pseudo path (sandbox-roots.ts)
  session: "/\u0000sessions/s1",
};

function codeOf(input: string): string | undefined {
  try {
    resolveVirtualPath(input, roots);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

describe("resolveVirtualPath", () => {
  it("resolves each root variable", () => {
    expect(resolveVirtualPath("{bundle-root}/config.yaml", roots)).toBe(`${roots.bundle}/config.yaml`);
    expect(resolveVirtualPath("{core-root}/tasks/workflow.md", roots)).toBe(`${roots.core}/tasks/workflow.md`);
    expect(resolveVirtualPath("{project-root}/bmad/bmm/config.yaml", roots)).toBe(`${roots.project}/bmad/bmm/config.yaml`);
    expect(resolveVirtualPath("{project_root}/bmad/core/tasks/workflow.xml", roots)).toBe(`${roots.core}/tasks/workflow.xml`);
    expect(resolveVirtualPath("{session-folder}/brief.md", roots)).toBe(`${roots.session}/brief.md`);
  });

  it("maps {output_folder} into the project, to _bmad-output when the config does not say", () => {
    expect(resolveVirtualPath("{output_folder}/prd.md", roots)).toBe(`${roots.project}/_bmad-output/prd.md`);
    expect(toVirtualPath(resolveVirtualPath("{output_folder}/prd.md", roots), roots)).toBe("{project-root}/_bmad-output/prd.md");
  });

  it("takes a path without a variable relative to the project root", () => {
    expect(resolveVirtualPath("bmad/core/tasks/workflow.md", roots)).toBe(`${roots.core}/tasks/workflow.md`);
  });

  it("keeps ../../etc/passwd outside, lexically (docs/security.md case 1)", () => {
    expect(resolveVirtualPath("../../etc/passwd", roots)).toBe("/etc/passwd");
  });

  it("keeps an absolute path absolute, so the containment check sees it (docs/security.md case 2)", () => {
    expect(resolveVirtualPath("/etc/passwd", roots)).toBe("/etc/passwd");
    expect(resolveVirtualPath("{bundle-root}//etc/passwd", roots)).toBe(`${roots.bundle}/etc/passwd`);
  });

  it("normalises a/../b.txt (docs/security.md case 6)", () => {
    expect(resolveVirtualPath("{bundle-root}/a/../b.txt", roots)).toBe(`${roots.bundle}/b.txt`);
  });

  it("names an unknown variable, and never lets a {foo} through", () => {
    expect(codeOf("{foo}/x.md")).toBe("UNRESOLVED_VARIABLE");
    expect(codeOf("{session-folder}/brief-{{date}}.md")).toBe("UNRESOLVED_VARIABLE");
    expect(codeOf("{session-folder}/{project_name}/x.md")).toBe("UNRESOLVED_VARIABLE");
    expect(() => resolveVirtualPath("{config_source}:user_name", roots)).toThrow(/\{config_source\}/);
  });

  it("refuses a root variable anywhere but at the start", () => {
    expect(codeOf("docs/{bundle-root}/x.md")).toBe("INVALID_PATH");
  });

  it("rejects paths that name no file (docs/security.md case 8)", () => {
    for (const input of [".", "/", "./", "//"]) expect(codeOf(input)).toBe("INVALID_PATH");
  });

  it("maps output variables into the project, from the config or by their own name", () => {
    const withOutputs: LexicalRoots = { ...roots, outputs: { output_folder: `${roots.project}/out`, planning_artifacts: `${roots.project}/out/plans` } };
    expect(resolveVirtualPath("{planning_artifacts}/prd.md", withOutputs)).toBe(`${roots.project}/out/plans/prd.md`);
    expect(resolveVirtualPath("{implementation_artifacts}/s.md", withOutputs)).toBe(`${roots.project}/out/implementation-artifacts/s.md`);
    expect(resolveVirtualPath("{planning_artifacts}/../../../etc/passwd", withOutputs)).toBe("/nonexistent/etc/passwd");
    expect(codeOf("docs/{planning_artifacts}/x.md")).toBe("INVALID_PATH");
    expect(canonicalVirtualPath("{planning_artifacts}/prd.md", withOutputs)).toBe("{project-root}/out/plans/prd.md");
  });

  it("takes BMAD's own default, docs/, for {project_knowledge} when no config names it", () => {
    expect(resolveVirtualPath("{project_knowledge}/project-context.md", roots)).toBe(`${roots.project}/docs/project-context.md`);
  });

  it("keeps the chat's scratch space apart from every disk path: no path the model writes reaches it but {session-folder}", () => {
    expect(resolveVirtualPath("{session-folder}/../s2/x.md", roots)).toBe("/\u0000sessions/s2/x.md");
    expect(toVirtualPath("/\u0000sessions/s2/x.md", roots)).toBeUndefined();
    expect(codeOf("/\u0000sessions/s1/x.md")).toBe("INVALID_PATH");
    expect(resolveVirtualPath("../../sessions/s1/x.md", roots)).toBe("/sessions/s1/x.md");
  });

  it("does not look up unknown variables on the prototype", () => {
    expect(codeOf("{constructor}/x")).toBe("UNRESOLVED_VARIABLE");
    expect(codeOf("{__proto__}/x")).toBe("UNRESOLVED_VARIABLE");
  });
});

describe("toVirtualPath", () => {
  it("names the most specific root", () => {
    expect(toVirtualPath(`${roots.core}/tasks/workflow.xml`, roots)).toBe("{core-root}/tasks/workflow.xml");
    expect(toVirtualPath(`${roots.bundle}/config.yaml`, roots)).toBe("{bundle-root}/config.yaml");
    expect(toVirtualPath(`${roots.project}/bmad/cis/config.yaml`, roots)).toBe("{project-root}/bmad/cis/config.yaml");
    expect(toVirtualPath(roots.session, roots)).toBe("{session-folder}");
  });

  it("reports an absolute path inside relative to its root (docs/security.md case 3)", () => {
    expect(toVirtualPath(resolveVirtualPath(`${roots.bundle}/src/a.ts`, roots), roots)).toBe("{bundle-root}/src/a.ts");
  });

  it("shows a skill bundle's files under {project-root}", () => {
    const skill: LexicalRoots = { ...roots, bundle: `${roots.project}/.claude/skills/tidy`, bundleIsSkill: true };
    expect(toVirtualPath(`${roots.project}/.claude/skills/tidy/SKILL.md`, skill)).toBe("{project-root}/.claude/skills/tidy/SKILL.md");
    expect(resolveVirtualPath("{bundle-root}/SKILL.md", skill)).toBe(`${roots.project}/.claude/skills/tidy/SKILL.md`);
  });

  it("does not treat a sibling sharing the prefix as inside (docs/security.md case 4)", () => {
    expect(toVirtualPath("/nonexistent/W-evil/secret", roots)).toBeUndefined();
  });
});

describe("canonicalVirtualPath", () => {
  it("rewrites a leading root variable to the most specific root, keeping other names", () => {
    expect(canonicalVirtualPath("{project-root}/bmad/core/tasks/workflow.xml", roots)).toBe("{core-root}/tasks/workflow.xml");
    expect(canonicalVirtualPath("{project_root}/bmad/custom/bundles/studio/x/{story_id}.md", roots)).toBe("{bundle-root}/x/{story_id}.md");
    expect(canonicalVirtualPath("{project-root}/docs", roots)).toBe("{project-root}/docs");
  });

  it("leaves other text alone", () => {
    for (const text of ["English", "{user_name}", "{project-root}/../../etc", "docs/x.md"]) {
      expect(canonicalVirtualPath(text, roots)).toBe(text);
    }
  });
});
