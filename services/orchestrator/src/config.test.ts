import { describe, expect, it } from "vitest";
import { parseEnv } from "@agent-orchestrator/shared/runtime";
import { builtInApprovals } from "@agent-orchestrator/shared/wire";
import { orchestratorEnvSchema } from "./config.js";

describe("APPROVALS_DEFAULTS", () => {
  it("keeps the built-in policies when unset or empty", () => {
    for (const env of [{}, { APPROVALS_DEFAULTS: " " }]) {
      const parsed = parseEnv(orchestratorEnvSchema, env);
      expect(parsed.ok && parsed.value.APPROVALS_DEFAULTS).toEqual(builtInApprovals);
    }
  });

  it("puts the operator's keys over the built-in ones", () => {
    const parsed = parseEnv(orchestratorEnvSchema, { APPROVALS_DEFAULTS: '{"tools":{"save_output":"ask"},"deciders":"editors"}' });
    expect(parsed.ok && parsed.value.APPROVALS_DEFAULTS).toEqual({ ...builtInApprovals, tools: { ...builtInApprovals.tools, save_output: "ask" }, deciders: "editors" });
  });

  it("refuses to start on text that is not JSON or not an approvals document, saying which", () => {
    const notJson = parseEnv(orchestratorEnvSchema, { APPROVALS_DEFAULTS: "{tools:" });
    expect(notJson.ok ? "" : notJson.message).toContain("APPROVALS_DEFAULTS");
    const unknownTool = parseEnv(orchestratorEnvSchema, { APPROVALS_DEFAULTS: '{"tools":{"read_file":"ask"}}' });
    expect(unknownTool.ok ? "" : unknownTool.message).toMatch(/APPROVALS_DEFAULTS.*tools/s);
  });
});

describe("the waits for a command and a script", () => {
  it("refuses to start when a command or a script at its limit could never be answered (docs/commands.md)", () => {
    expect(parseEnv(orchestratorEnvSchema, { COMMAND_TIMEOUT_MAX_MS: "600000", SCRIPT_TIMEOUT_MS: "600000" }).ok).toBe(true);
    for (const name of ["COMMAND_TIMEOUT_MAX_MS", "SCRIPT_TIMEOUT_MS"]) {
      const parsed = parseEnv(orchestratorEnvSchema, { [name]: "600000", TOOL_TIMEOUT_MS: "120000" });
      expect(parsed.ok ? "" : parsed.message).toMatch(new RegExp(`${name}.*never be answered`, "s"));
    }
  });
});
