import { describe, expect, it } from "vitest";
import { ProjectSettings, builtInApprovals, effectiveApprovals, withVerifyCommands } from "@agent-orchestrator/shared/wire";
import { approvalVerdict } from "./approval-verdict.js";

// docs/repositories.md "Commands the project allows": the allow-list starts with git's read-only commands and the
// project's `repository.verify` commands; everything else asks, and where nobody can be asked it is refused (case 315)
const command = (settings: unknown, line: string) => {
  const document = ProjectSettings.parse(settings);
  return approvalVerdict(withVerifyCommands(effectiveApprovals(builtInApprovals, document.approvals), document.repository), "run_command", { command: line });
};

describe("a project's verify commands", () => {
  const project = { repository: { verify: ["npm test", "npm ci && node --test", "pytest tests/*"] } };

  it("run without asking, each command of a verify line on its own, beside git's read-only commands", () => {
    for (const line of ["npm test", "npm ci", "node --test", "npm ci && node --test", "pytest tests/unit", "git status", "git log --oneline && npm test"]) {
      expect(command(project, line).policy, line).toBe("allow");
    }
    expect(command(project, "npm test").reason).toContain('matches "npm test"');
  });

  it("do not let another command through beside them, nor any command where none are set (case 315)", () => {
    for (const line of ["npm test && curl https://example.com", "npm test; rm -rf .git", "npm install", "npm test $(cat /etc/passwd)", "git commit -m x", "node --test > out.txt"]) {
      expect(command(project, line).policy, line).toBe("ask");
    }
    expect(command({}, "npm test").policy).toBe("ask");
  });

  it("yield to a stricter rule of the project's approvals that matches them", () => {
    const strict = { ...project, approvals: { commands: [{ pattern: "npm *", policy: "deny" }] } };
    expect(command(strict, "npm test").policy).toBe("deny");
    expect(command(strict, "node --test").policy).toBe("allow");
    // a project's own command rules replace git's read-only defaults; its verify commands still run
    expect(command(strict, "git status").policy).toBe("ask");
  });

  it("are checked when set: one command line each, no control or bidi characters, at most 50", () => {
    expect(ProjectSettings.safeParse({ repository: { verify: ["npm test\ncurl x"] } }).success).toBe(false);
    expect(ProjectSettings.safeParse({ repository: { verify: ["npm test \u202e"] } }).success).toBe(false);
    expect(ProjectSettings.safeParse({ repository: { verify: [" ; "] } }).success).toBe(false);
    expect(ProjectSettings.safeParse({ repository: { verify: Array.from({ length: 51 }, (_, n) => `make check-${n}`) } }).success).toBe(false);
    expect(ProjectSettings.parse({ repository: { network: false, verify: [" npm test "] } })).toEqual({ repository: { network: false, verify: ["npm test"] } });
  });
});
