import { describe, expect, it } from "vitest";
import { ApprovalsSettings, builtInApprovals, effectiveApprovals } from "./approvals-settings.js";
import { ProjectSettings } from "./bmad-settings.js";

describe("ApprovalsSettings", () => {
  it("takes the settings document's approvals: policies per tool and per command pattern, deciders, expiry", () => {
    const approvals = {
      tools: { save_output: "ask", run_command: "ask" },
      commands: [{ pattern: "git status*", policy: "allow" }],
      deciders: "editors",
      expire_minutes: 90,
    };
    expect(ProjectSettings.parse({ approvals })).toEqual({ approvals });
  });

  it("refuses a tool that only reads, an unknown policy or key, and says which", () => {
    expect(ApprovalsSettings.safeParse({ tools: { read_file: "ask" } }).success).toBe(false);
    expect(ApprovalsSettings.safeParse({ tools: { save_output: "maybe" } }).success).toBe(false);
    expect(ApprovalsSettings.safeParse({ deciders: "viewers" }).success).toBe(false);
    const unknown = ApprovalsSettings.safeParse({ timeout: 5 });
    expect(unknown.error?.issues[0]).toMatchObject({ code: "unrecognized_keys", keys: ["timeout"] });
  });

  it("case 275: refuses a pattern of several commands, one with a line break or a bidi character, or an empty one", () => {
    for (const pattern of ["npm test && npm run lint", "git status; ls", "git log | head", "echo $(id)", "git diff > x", "git status\nrm", "npm \u202etest", "  "]) {
      expect(ApprovalsSettings.safeParse({ commands: [{ pattern, policy: "allow" }] }).success, pattern).toBe(false);
    }
    expect(ApprovalsSettings.safeParse({ commands: [{ pattern: "npm test 2>&1", policy: "allow" }] }).success).toBe(true);
  });

  it("bounds the expiry from a minute to 30 days and the rules to 200", () => {
    expect(ApprovalsSettings.safeParse({ expire_minutes: 0 }).success).toBe(false);
    expect(ApprovalsSettings.safeParse({ expire_minutes: 30 * 24 * 60 + 1 }).success).toBe(false);
    expect(ApprovalsSettings.safeParse({ expire_minutes: 1.5 }).success).toBe(false);
    const rules = Array.from({ length: 201 }, (_unused, index) => ({ pattern: `cmd${index}`, policy: "allow" }));
    expect(ApprovalsSettings.safeParse({ commands: rules }).success).toBe(false);
  });
});

describe("effectiveApprovals", () => {
  it("puts a project's keys over the defaults: tools tool by tool, commands as a whole list", () => {
    const merged = effectiveApprovals(builtInApprovals, { tools: { save_output: "ask" }, commands: [{ pattern: "make", policy: "allow" }] });
    expect(merged.tools).toEqual({ save_output: "ask", edit_file: "allow", run_script: "allow", run_command: "ask" });
    expect(merged.commands).toEqual([{ pattern: "make", policy: "allow" }]);
    expect(merged.deciders).toBe("requester");
    expect(merged.expire_minutes).toBe(1440);
    expect(effectiveApprovals(builtInApprovals, undefined)).toEqual(builtInApprovals);
  });
});
