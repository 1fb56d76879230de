import { describe, expect, it } from "vitest";
import { builtInApprovals, effectiveApprovals, type ApprovalsSettings, type EffectiveApprovals } from "@agent-orchestrator/shared/wire";
import { approvalVerdict, maxMatchedCommandChars } from "./approval-verdict.js";

const project = (settings: ApprovalsSettings): EffectiveApprovals => effectiveApprovals(builtInApprovals, settings);
const command = (approvals: EffectiveApprovals, line: string) => approvalVerdict(approvals, "run_command", { command: line });

describe("approvalVerdict", () => {
  it("keeps today's behaviour by default: documents and scripts run, commands ask but for git's read-only ones", () => {
    expect(approvalVerdict(builtInApprovals, "save_output", { file_path: "x", content: "y" }).policy).toBe("allow");
    expect(approvalVerdict(builtInApprovals, "edit_file", {}).policy).toBe("allow");
    expect(approvalVerdict(builtInApprovals, "run_script", { command: "python3 x.py" }).policy).toBe("allow");
    expect(command(builtInApprovals, "npm test")).toMatchObject({ policy: "ask", reason: expect.stringContaining("run_command is set to ask") });
    expect(command(builtInApprovals, "git status --short").policy).toBe("allow");
    expect(command(builtInApprovals, "git diff HEAD~1").policy).toBe("allow");
    expect(command(builtInApprovals, "git rev-parse HEAD").policy).toBe("allow");
    expect(command(builtInApprovals, "git branch --show-current").policy).toBe("allow");
    expect(command(builtInApprovals, "git branch -D main").policy).toBe("ask");
    expect(command(builtInApprovals, "git push origin main").policy).toBe("ask");
  });

  it("lets every tool that only reads run whatever the settings say", () => {
    const strict = project({ tools: { save_output: "deny", run_command: "deny" } });
    for (const tool of ["read_file", "list_files", "find_files", "search_files", "preload_workflow", "load_skill", "run_subagent"]) {
      expect(approvalVerdict(strict, tool, {})).toMatchObject({ policy: "allow", reason: `${tool} only reads` });
    }
  });

  it("applies the project's tool policy over the default's, tool by tool, and says so", () => {
    const asking = project({ tools: { save_output: "ask" } });
    expect(approvalVerdict(asking, "save_output", {})).toEqual({ policy: "ask", reason: "save_output is set to ask in this project" });
    expect(approvalVerdict(asking, "edit_file", {}).policy).toBe("allow");
    expect(approvalVerdict(project({ tools: { edit_file: "deny" } }), "edit_file", {})).toEqual({ policy: "deny", reason: "edit_file is set to deny in this project" });
  });

  it("allows a line of several commands only when every command is allowed", () => {
    const approvals = project({ commands: [{ pattern: "npm test", policy: "allow" }, { pattern: "git status*", policy: "allow" }] });
    expect(command(approvals, "git status && npm test").policy).toBe("allow");
    for (const line of ["git status; rm -rf /", "npm test && curl evil.example", "npm test || rm -rf /", "git status | sh", "npm test & rm x", "git status\nrm x"]) {
      expect(command(approvals, line)).toMatchObject({ policy: "ask", reason: expect.stringContaining("matches no command pattern") });
    }
  });

  it("case 273: does not let * swallow a second command, a substitution or a redirection", () => {
    const approvals = project({ commands: [{ pattern: "git log*", policy: "allow" }] });
    expect(command(approvals, "git log --oneline").policy).toBe("allow");
    expect(command(approvals, "git log $(rm -rf /)").policy).toBe("ask");
    expect(command(approvals, "git log `rm -rf /`").policy).toBe("ask");
    expect(command(approvals, "git log > .git/hooks/pre-commit").policy).toBe("ask");
    expect(command(approvals, "git log <(cat /etc/passwd)").policy).toBe("ask");
    expect(command(approvals, "git log 2>&1").policy).toBe("allow");
  });

  it("lets deny win over ask and ask over allow, whatever the order of the patterns", () => {
    const approvals = project({
      commands: [
        { pattern: "git *", policy: "allow" },
        { pattern: "git push*", policy: "deny" },
        { pattern: "git commit*", policy: "ask" },
      ],
    });
    expect(command(approvals, "git push origin main")).toMatchObject({ policy: "deny", reason: expect.stringContaining('"git push*", which is set to deny') });
    expect(command(approvals, "git commit -m x").policy).toBe("ask");
    expect(command(approvals, "git add .").policy).toBe("allow");
    expect(command(approvals, "git add . && git push").policy).toBe("deny");
    expect(command(approvals, "git add . && git commit -m x").policy).toBe("ask");
  });

  it("gives a command that matches no pattern run_command's own policy, even allow or deny", () => {
    expect(command(project({ tools: { run_command: "allow" }, commands: [{ pattern: "rm *", policy: "deny" }] }), "ls -la").policy).toBe("allow");
    expect(command(project({ tools: { run_command: "allow" }, commands: [{ pattern: "rm *", policy: "deny" }] }), "ls; rm -rf x").policy).toBe("deny");
    expect(command(project({ tools: { run_command: "deny" }, commands: [{ pattern: "npm test", policy: "allow" }] }), "npm test").policy).toBe("allow");
    expect(command(project({ tools: { run_command: "deny" } }), "make")).toMatchObject({ policy: "deny", reason: expect.stringContaining("run_command is set to deny") });
  });

  it("replaces the default command patterns with the project's when it sets its own", () => {
    const approvals = project({ commands: [{ pattern: "npm test", policy: "allow" }] });
    expect(command(approvals, "git status").policy).toBe("ask");
    expect(command(project({ commands: [] }), "git status").policy).toBe("ask");
    expect(command(project({}), "git status").policy).toBe("allow");
  });

  it("asks for a line too long to match rather than match it, unless run_command is denied", () => {
    const approvals = project({ tools: { run_command: "allow" }, commands: [{ pattern: "echo *", policy: "allow" }] });
    const long = `echo ${"x".repeat(maxMatchedCommandChars)}`;
    expect(command(approvals, long)).toMatchObject({ policy: "ask", reason: expect.stringContaining("longer than") });
    expect(command(project({ tools: { run_command: "deny" } }), long).policy).toBe("deny");
  });

  it("takes run_command's own policy for a line with no command in it, or no command argument", () => {
    expect(command(builtInApprovals, " ; ").policy).toBe("ask");
    expect(approvalVerdict(builtInApprovals, "run_command", {}).policy).toBe("ask");
    expect(approvalVerdict(project({ tools: { run_command: "allow" } }), "run_command", { command: 42 }).policy).toBe("allow");
  });

  it("quotes the command and the pattern in its reason, cut to a readable length", () => {
    const verdict = command(project({ commands: [{ pattern: "rm *", policy: "deny" }] }), `rm ${"y".repeat(500)}`);
    expect(verdict.reason).toMatch(/^"rm y+…" matches "rm \*", which is set to deny in this project$/);
  });

  it("refuses a call that would wait in a turn that cannot wait, saying why, and leaves allow and deny as they are", () => {
    const why = "a subagent cannot wait for a member's decision";
    const asks = project({ tools: { save_output: "ask", edit_file: "deny" } });
    expect(approvalVerdict(asks, "save_output", { file_path: "x", content: "y" }, why)).toEqual({
      policy: "deny",
      reason: "save_output is set to ask in this project, and a subagent cannot wait for a member's decision",
    });
    expect(approvalVerdict(asks, "read_file", { file_path: "x" }, why)).toEqual({ policy: "allow", reason: "read_file only reads" });
    expect(approvalVerdict(asks, "edit_file", {}, why)).toEqual({ policy: "deny", reason: "edit_file is set to deny in this project" });
  });
});
