import { describe, expect, it } from "vitest";
import { scratchTextForModel } from "./scratch-text.js";

describe("scratchTextForModel", () => {
  it("names the sandbox's paths in a rendered skill as the model's virtual paths", () => {
    const rendered = "Read /sandbox/project/_bmad/render/bmad-build/steps/01.md, then /sandbox/project/_bmad/scripts/x.py and /sandbox/session/out.md";
    expect(scratchTextForModel("{session-folder}/.bmad-scratch/_bmad/render/bmad-build/workflow.md", rendered)).toBe(
      "Read {session-folder}/.bmad-scratch/_bmad/render/bmad-build/steps/01.md, then {project-root}/_bmad/scripts/x.py and {session-folder}/out.md",
    );
  });

  it("leaves every other file as it is", () => {
    const text = "a note about /sandbox/project";
    expect(scratchTextForModel("{session-folder}/notes.md", text)).toBe(text);
    expect(scratchTextForModel("{project-root}/_bmad/render/x.md", text)).toBe(text);
  });
});
