import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger } from "@agent-orchestrator/shared/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox, type Sandbox } from "../sandbox/index.js";
import { openTestFileStore, type TestFileStore } from "../testing/file-store-fixture.js";
import { createSandboxFixture, type SandboxFixture } from "../testing/sandbox-fixture.js";
import { corpusInstall, corpusUserName } from "@agent-orchestrator/testing/corpus";
import { preloadWorkflow, type PreloadedWorkflow } from "./preload-workflow.js";

const logger = createLogger("tool-runner-test", "silent");
const today = new Date("2026-05-06T12:00:00Z");
const repoRoot = fileURLToPath(new URL("../../../../", import.meta.url));

// the projects' own files: none here, the workflows are installed files
let store: TestFileStore;
beforeAll(async () => {
  store = await openTestFileStore();
});
afterAll(() => store.close());

const paths = (result: PreloadedWorkflow) => result.files.map((file) => file.path);

describe("preloadWorkflow on the repo's sample bundle", () => {
  it("loads idea-brief with its variables resolved, its instructions, template and the engine", async () => {
    const sandbox = await createSandbox({ projectRoot: repoRoot, files: store.files, readMaxBytes: 1 << 20, writeMaxBytes: 1 << 20, listMaxEntries: 100 });
    const context = { session_id: "sample", project_id: "p1", bundle_path: "bmad/custom/bundles/idea-studio" };
    const result = await preloadWorkflow(sandbox, context, "{bundle-root}/workflows/idea-brief/workflow.yaml", { today, logger });
    expect(result.path).toBe("{bundle-root}/workflows/idea-brief/workflow.yaml");
    expect(result.workflow.name).toBe("idea-brief");
    expect(result.workflow.variables).toMatchObject({
      config_source: "{bundle-root}/config.yaml",
      // the bundle's config names "{session-folder}", no place of the project's: BMAD's default output folder (docs/design.md "Variables")
      output_folder: "{project-root}/_bmad-output",
      user_name: "Friend",
      communication_language: "English",
      project_name: "Idea Studio",
      date: "2026-05-06",
      installed_path: "{bundle-root}/workflows/idea-brief",
      instructions: "{bundle-root}/workflows/idea-brief/instructions.md",
      default_output_file: "{project-root}/_bmad-output/idea-brief-2026-05-06.md",
    });
    expect(paths(result)).toEqual([
      "{bundle-root}/workflows/idea-brief/instructions.md",
      "{bundle-root}/workflows/idea-brief/template.md",
      "{core-root}/tasks/workflow.md",
    ]);
    expect(result.files[0]?.content).toContain("Capture the idea");
    expect(result.missing).toEqual([]);
  });
});

// the BMAD corpus install (6.0.0-alpha.7 from npm, see test/support/corpus.ts), read in place in the install cache
describe("preloadWorkflow on the BMAD corpus (bmad/bmm)", () => {
  let corpusRoot: string;
  let sandbox: Sandbox;
  const context = { session_id: "corpus", project_id: "p1", bundle_path: "bmad/bmm" };
  const preload = (workflow: string) => preloadWorkflow(sandbox, context, workflow, { today, logger });

  beforeAll(async () => {
    corpusRoot = await corpusInstall();
    sandbox = await createSandbox({ projectRoot: corpusRoot, files: store.files, readMaxBytes: 1 << 20, writeMaxBytes: 1 << 20, listMaxEntries: 100 });
  }, 300_000);

  it("product-brief: config values, output_folder as the project folder the config names, template, instructions, checklist, workflow.xml", async () => {
    const result = await preload("{project-root}/bmad/bmm/workflows/1-analysis/product-brief/workflow.yaml");
    expect(result.workflow.variables).toMatchObject({
      config_source: "{bundle-root}/config.yaml",
      output_folder: "{project-root}/docs",
      user_name: corpusUserName,
      user_skill_level: "intermediate",
      installed_path: "{bundle-root}/workflows/1-analysis/product-brief",
      // the installer names the project after the folder it installs into
      default_output_file: `{project-root}/docs/product-brief-${path.basename(corpusRoot)}-2026-05-06.md`,
    });
    expect(result.workflow.variables["input_file_patterns"]).toMatchObject({ research: { whole: "{project-root}/docs/*research*.md" } });
    expect(paths(result)).toEqual([
      "{bundle-root}/workflows/1-analysis/product-brief/template.md",
      "{bundle-root}/workflows/1-analysis/product-brief/instructions.md",
      "{bundle-root}/workflows/1-analysis/product-brief/checklist.md",
      "{core-root}/tasks/workflow.xml",
    ]);
    expect(result.missing).toEqual([]);
  });

  it("prd: loads prd_template", async () => {
    const result = await preload("{project-root}/bmad/bmm/workflows/2-plan-workflows/prd/workflow.yaml");
    expect(paths(result)).toContain("{bundle-root}/workflows/2-plan-workflows/prd/prd-template.md");
    expect(result.workflow.variables["status_file"]).toBe("{project-root}/docs/bmm-workflow-status.yaml");
  });

  it("brainstorm-project: loads the workflow <invoke-workflow> names through a variable", async () => {
    const result = await preload("{project-root}/bmad/bmm/workflows/1-analysis/brainstorm-project/workflow.yaml");
    expect(result.workflow.variables["core_brainstorming"]).toBe("{core-root}/workflows/brainstorming/workflow.yaml");
    expect(paths(result)).toContain("{core-root}/workflows/brainstorming/workflow.yaml");
  });

  it("tech-spec: loads the advanced elicitation task its <invoke-task> names, and every template", async () => {
    const result = await preload("{project-root}/bmad/bmm/workflows/2-plan-workflows/tech-spec/workflow.yaml");
    expect(paths(result)).toEqual(
      expect.arrayContaining([
        "{core-root}/tasks/adv-elicit.xml",
        "{bundle-root}/workflows/2-plan-workflows/tech-spec/tech-spec-template.md",
        "{bundle-root}/workflows/2-plan-workflows/tech-spec/user-story-template.md",
        "{bundle-root}/workflows/2-plan-workflows/tech-spec/epics-template.md",
      ]),
    );
  });

  it("document-project: loads the workflow.yaml of an <invoke-workflow> that names a folder", async () => {
    const result = await preload("{project-root}/bmad/bmm/workflows/document-project/workflow.yaml");
    expect(paths(result)).toContain("{bundle-root}/workflows/workflow-status/workflow.yaml");
  });

  it("create-story: loads a task named in <invoke-task> text as a plain bmad/ path", async () => {
    const result = await preload("{project-root}/bmad/bmm/workflows/4-implementation/create-story/workflow.yaml");
    expect(paths(result)).toContain("{core-root}/tasks/validate-workflow.xml");
  });

  it("research: resolves {project_root} in the engine reference and current_year", async () => {
    const result = await preload("{project-root}/bmad/bmm/workflows/1-analysis/research/workflow.yaml");
    expect(result.workflow.variables["current_year"]).toBe("2026");
    expect(paths(result)).toContain("{core-root}/tasks/workflow.xml");
    expect(paths(result)).toContain("{bundle-root}/workflows/1-analysis/research/instructions-router.md");
  });

  it("testarch/atdd: loads workflow.xml when the instructions name no engine, keeps runtime names", async () => {
    const result = await preload("{bundle-root}/workflows/testarch/atdd/workflow.yaml");
    expect(paths(result)).toContain("{core-root}/tasks/workflow.xml");
    expect(result.workflow.variables["default_output_file"]).toBe("{project-root}/docs/atdd-checklist-{story_id}.md");
  });

  it("architecture: loads its template and checklist", async () => {
    const result = await preload("{bundle-root}/workflows/3-solutioning/architecture/workflow.yaml");
    expect(paths(result)).toEqual(
      expect.arrayContaining([
        "{bundle-root}/workflows/3-solutioning/architecture/architecture-template.md",
        "{bundle-root}/workflows/3-solutioning/architecture/checklist.md",
      ]),
    );
  });

  it("core brainstorming: reads the cis config and lists its absent checklist as missing, not fatal", async () => {
    const result = await preload("{core-root}/workflows/brainstorming/workflow.yaml");
    expect(result.workflow.variables).toMatchObject({ config_source: "{project-root}/bmad/cis/config.yaml", output_folder: "{project-root}/docs" });
    expect(result.missing).toEqual(["{core-root}/workflows/brainstorming/checklist.md"]);
    expect(paths(result)).toContain("{core-root}/workflows/brainstorming/instructions.md");
    expect(result.workflow.variables["web_bundle"]).toBeUndefined();
  });

  it("core party-mode: a workflow with no config_source", async () => {
    const result = await preload("{core-root}/workflows/party-mode/workflow.yaml");
    expect(paths(result)).toEqual(["{core-root}/workflows/party-mode/instructions.md", "{core-root}/tasks/workflow.xml"]);
  });

  it("accepts a workflow folder instead of its workflow.yaml", async () => {
    const result = await preload("{bundle-root}/workflows/4-implementation/dev-story");
    expect(result.path).toBe("{bundle-root}/workflows/4-implementation/dev-story/workflow.yaml");
  });

  it("loads every bmm and core workflow with its instructions and an engine", async () => {
    const { execFileSync } = await import("node:child_process");
    const found = execFileSync("find", ["bmad/bmm", "bmad/core", "-name", "workflow.yaml"], { cwd: corpusRoot, encoding: "utf8" })
      .trim()
      .split("\n");
    expect(found.length).toBeGreaterThanOrEqual(30);
    for (const workflow of found) {
      const result = await preload(`{project-root}/${workflow}`);
      expect(result.files.some((file) => /\/instructions[^/]*\.md$/.test(file.path)), workflow).toBe(true);
      expect(result.files.some((file) => file.path.startsWith("{core-root}/tasks/workflow.")), workflow).toBe(true);
    }
  });
});

describe("preloadWorkflow edge cases", () => {
  let fixture: SandboxFixture;
  const workflowFolder = () => path.join(fixture.bundle, "workflows", "brief");
  beforeAll(async () => {
    fixture = await createSandboxFixture();
  });
  afterAll(() => fixture.cleanup());

  async function writeWorkflow(yaml: string, instructions: string): Promise<void> {
    await mkdir(workflowFolder(), { recursive: true });
    await writeFile(path.join(workflowFolder(), "workflow.yaml"), yaml);
    await writeFile(path.join(workflowFolder(), "instructions.md"), instructions);
  }

  it("loads adv-elicit.xml for <elicit-required> and lists it missing when core lacks it", async () => {
    await writeWorkflow(
      'name: brief\ninstalled_path: "{bundle-root}/workflows/brief"\ninstructions: "{installed_path}/instructions.md"\n',
      "<step n='1'><elicit-required/></step>",
    );
    const result = await preloadWorkflow(fixture.sandbox, fixture.context, "{bundle-root}/workflows/brief/workflow.yaml", { today, logger });
    expect(result.missing).toContain("{core-root}/tasks/adv-elicit.xml");
    await writeFile(path.join(fixture.project, "bmad", "core", "tasks", "adv-elicit.xml"), "<task/>");
    const again = await preloadWorkflow(fixture.sandbox, fixture.context, "{bundle-root}/workflows/brief/workflow.yaml", { today, logger });
    expect(paths(again)).toContain("{core-root}/tasks/adv-elicit.xml");
  });

  it("does not let a custom bundle's workflow pull files from another module or from outside", async () => {
    await writeWorkflow(
      'name: brief\ninstructions: "{bundle-root}/workflows/brief/instructions.md"\ntemplate: "{project-root}/bmad/cis/config.yaml"\n',
      '<invoke-task>{project-root}/../outside/secret.md</invoke-task><invoke-workflow path="/etc"/>',
    );
    const result = await preloadWorkflow(fixture.sandbox, fixture.context, "{bundle-root}/workflows/brief/workflow.yaml", { today, logger });
    expect(paths(result)).not.toContain("{project-root}/bmad/cis/config.yaml");
    expect(result.missing).toEqual(expect.arrayContaining(["{project-root}/bmad/cis/config.yaml"]));
    expect(JSON.stringify(result)).not.toContain(fixture.base);
  });

  it("reports a component whose path keeps an unknown variable as missing", async () => {
    await writeWorkflow('name: brief\ninstructions: "{bundle-root}/workflows/brief/instructions.md"\ntemplate: "{nowhere}/t.md"\n', "# steps");
    const result = await preloadWorkflow(fixture.sandbox, fixture.context, "{bundle-root}/workflows/brief/workflow.yaml", { today, logger });
    expect(result.missing).toContain("{nowhere}/t.md");
  });

  it("fails with VALIDATION_ERROR for YAML that is not a mapping, and with the sandbox's verdict for a bad path", async () => {
    await writeWorkflow("- just\n- a list\n", "");
    await expect(preloadWorkflow(fixture.sandbox, fixture.context, "{bundle-root}/workflows/brief/workflow.yaml", { today, logger })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    await writeWorkflow("name: [unclosed\n", "");
    await expect(preloadWorkflow(fixture.sandbox, fixture.context, "{bundle-root}/workflows/brief/workflow.yaml", { today, logger })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
    await expect(preloadWorkflow(fixture.sandbox, fixture.context, "/etc/workflow.yaml", { today, logger })).rejects.toMatchObject({
      code: "PATH_OUTSIDE_ROOT",
    });
    await expect(preloadWorkflow(fixture.sandbox, fixture.context, "{bundle-root}/workflows/none", { today, logger })).rejects.toMatchObject({
      code: "FILE_NOT_FOUND",
    });
  });

  it("survives a YAML alias bomb", async () => {
    const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 9 }, (_, level) => {
      const previous = level === 0 ? "a" : `l${level - 1}`;
      return `l${level}: &l${level} [*${previous}, *${previous}, *${previous}, *${previous}, *${previous}, *${previous}, *${previous}, *${previous}, *${previous}]`;
    })].join("\n");
    await writeWorkflow(`${bomb}\nname: bomb\n`, "");
    await expect(preloadWorkflow(fixture.sandbox, fixture.context, "{bundle-root}/workflows/brief/workflow.yaml", { today, logger })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
    });
  });
});
