import { describe, expect, it } from "vitest";
import { criticalFiles, fileToLoad } from "./critical-file.js";

describe("fileToLoad", () => {
  it("finds the file of a v6 early 'Load into memory' action", () => {
    expect(fileToLoad("Load into memory {bundle-root}/config.yaml and set variables: project_name, user_name")).toBe(
      "{bundle-root}/config.yaml",
    );
  });

  it("finds the file of a v6 compiled activation step", () => {
    expect(fileToLoad("🚨 IMMEDIATE ACTION REQUIRED - BEFORE ANY OUTPUT:\n - Load and read {project-root}/bmad/bmm/config.yaml NOW")).toBe(
      "{project-root}/bmad/bmm/config.yaml",
    );
  });

  it("finds a bare path into a BMAD tree, as 4.x writes it, as a {project-root} path", () => {
    expect(fileToLoad("STEP 3: Load and read `.bmad-core/core-config.yaml` (project configuration) before any greeting")).toBe(
      "{project-root}/.bmad-core/core-config.yaml",
    );
    expect(fileToLoad("Read _bmad/bmm/config.yaml first.")).toBe("{project-root}/_bmad/bmm/config.yaml");
    expect(fileToLoad("load 'bmad/core/config.yaml'")).toBe("{project-root}/bmad/core/config.yaml");
  });

  it("takes no pattern, no folder inside a longer name and no path without a load for a file to load", () => {
    expect(fileToLoad("Dependencies map to .bmad-core/{type}/{name}")).toBeUndefined();
    expect(fileToLoad("Only load files from .bmad-core/{type}/{name} when asked")).toBeUndefined();
    expect(fileToLoad("Exception: Read bmad-core/core-config.yaml during activation")).toBeUndefined();
    expect(fileToLoad("Read the guide in docs/my_bmad/notes.md")).toBeUndefined();
  });

  it("leaves instructions that load nothing alone", () => {
    expect(fileToLoad("Remember the user's name is {user_name}")).toBeUndefined();
    expect(fileToLoad("Load persona from this current agent file (already in context)")).toBeUndefined();
  });
});

describe("criticalFiles", () => {
  it("lists each file the actions load once, in order, and skips the actions that load nothing", () => {
    expect(
      criticalFiles([
        "Load into memory {bundle-root}/config.yaml and set variables",
        "Remember the user's name is {user_name}",
        "STEP 3: Load and read `.bmad-core/core-config.yaml` before any greeting",
        "Read {bundle-root}/config.yaml again",
      ]),
    ).toEqual(["{bundle-root}/config.yaml", "{project-root}/.bmad-core/core-config.yaml"]);
  });
});
