import { describe, expect, it } from "vitest";
import type { SettingsLayers } from "../wire/settings/bmad-settings.js";
import { configUserOverlay, lateAnswerNames, settingsCustomizationLayers, skillUserOverlay, withSettingsAnswers } from "./settings-merge.js";

const layers: SettingsLayers = {
  project: { bmad: { project_name: "Checkout redesign", user_skill_level: "expert" }, customize: { "bmad-agent-analyst": { agent: { icon: "🔍" } } } },
  member: { bmad: { user_name: "Bob", communication_language: "German" }, customize: { "bmad-agent-analyst": { agent: { menu: [{ code: "BX", description: "Bob's" }] } } } },
};

describe("settings merged over an install", () => {
  it("takes the install's answers, then the project's, then the member's", () => {
    const install = { user_name: "Ada", communication_language: "English", project_name: "install", output_folder: "_bmad-output" };
    expect(withSettingsAnswers(install, layers)).toEqual({ user_name: "Bob", communication_language: "German", project_name: "Checkout redesign", user_skill_level: "expert", output_folder: "_bmad-output" });
    expect(withSettingsAnswers(install, undefined)).toEqual(install);
  });

  it("adds the project's customization, then the member's, after the install's layers", () => {
    expect(settingsCustomizationLayers(layers, "bmad-agent-analyst")).toEqual([{ agent: { icon: "🔍" } }, { agent: { menu: [{ code: "BX", description: "Bob's" }] } }]);
    expect(settingsCustomizationLayers(layers, "constructor")).toEqual([]);
    expect(skillUserOverlay({ agent: { principles: ["mine"] } }, layers, "bmad-agent-analyst")).toEqual({
      agent: { principles: ["mine"], icon: "🔍", menu: [{ code: "BX", description: "Bob's" }] },
    });
  });

  it("writes the answers into [core] and into each module that has its own value, so BMAD's resolver reads them", () => {
    const installMerged = { core: { user_name: "Ada" }, modules: { bmm: { user_skill_level: "intermediate", planning_artifacts: "x" }, cis: { other: "y" } } };
    const overlay = configUserOverlay(installMerged, { core: { communication_language: "English" } }, { user_name: "Bob", user_skill_level: "expert" });
    expect(overlay).toEqual({ core: { communication_language: "English", user_name: "Bob", user_skill_level: "expert" }, modules: { bmm: { user_skill_level: "expert" } } });
  });

  it("names the per-person and per-project answers late once any setting gives an answer, and none without", () => {
    expect([...lateAnswerNames(layers)].sort()).toEqual(["communication_language", "document_output_language", "project_name", "user_name", "user_skill_level"]);
    expect(lateAnswerNames({ project: { bmad: {}, customize: {} }, member: { bmad: {}, customize: {} } }).size).toBe(0);
    expect(lateAnswerNames(undefined).size).toBe(0);
  });
});
