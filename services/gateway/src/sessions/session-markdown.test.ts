import { describe, expect, it } from "vitest";
import { zeroUsage, type SessionView } from "@agent-orchestrator/shared/wire";
import { exportFileName, sessionMarkdown } from "./session-markdown.js";

const session: SessionView = {
  id: "s1",
  agent_id: "bmm/analyst",
  project_id: "p1",
  owner: "ada",
  status: "completed",
  run_id: null,
  run_started_at: null,
  last_run_id: "r1",
  turns: 1,
  usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
  title: "Brief",
  created_at: "2025-01-01T10:00:00.000Z",
  updated_at: "2025-01-01T10:05:00.000Z",
  messages: [
    { role: "user", content: "Use `this`", attachments: [{ path: "a`b.md" }] },
    { role: "assistant", content: "# Done\n\nSaved." },
  ],
  workflows: [],
  files_written: ["{project-root}/docs/brief.md"],
};

describe("sessionMarkdown", () => {
  it("writes the header, then each message under who said it, with its attachments", () => {
    expect(sessionMarkdown(session, { agentName: "Mary", projectName: "Launch" })).toBe(
      [
        "# Brief",
        "",
        "- Agent: Mary (`bmm/analyst`)",
        "- Project: Launch",
        "- Owner: ada",
        "- Started: 2025-01-01T10:00:00.000Z",
        "- Last changed: 2025-01-01T10:05:00.000Z",
        "- Turns: 1",
        "- Tokens: 120 (100 prompt, 20 completion)",
        "- Files written: `{project-root}/docs/brief.md`",
        "",
        "---",
        "",
        "**You:**",
        "",
        "Use `this`",
        "",
        "Attached:",
        "- ``a`b.md``",
        "",
        "---",
        "",
        "**Mary:**",
        "",
        "# Done",
        "",
        "Saved.",
        "",
      ].join("\n"),
    );
  });

  it("names a file kept in the chat's scratch space by {session-folder}", () => {
    const text = sessionMarkdown({ ...session, messages: [{ role: "user", content: "Read it", attachments: [{ path: "inputs/notes.md", folder: "session" }, { path: "src/app.js" }] }] }, { agentName: "Mary", projectName: "Launch" });
    expect(text).toContain("Attached:\n- `{session-folder}/inputs/notes.md`\n- `src/app.js`");
  });

  it("names a chat without a title, and keeps zero usage readable", () => {
    const text = sessionMarkdown({ ...session, title: "", usage: zeroUsage(), messages: [] }, { agentName: "Mary", projectName: "Launch" });
    expect(text.split("\n")[0]).toBe("# Untitled chat");
    expect(text).toContain("- Tokens: 0 (0 prompt, 0 completion)");
  });
});

describe("exportFileName", () => {
  it("keeps the title without characters a file system or a header refuses", () => {
    expect(exportFileName({ id: "s1", title: 'a/b\\c:"d"\n<e>|f?*' })).toBe("a b c d e f.md");
    expect(exportFileName({ id: "s1", title: "Étude de marché" })).toBe("Étude de marché.md");
    expect(exportFileName({ id: "s1", title: " / " })).toBe("chat-s1.md");
    expect(exportFileName({ id: "s1", title: "x".repeat(300) })).toBe(`${"x".repeat(100)}.md`);
  });

  it("drops bidi format characters, which would make the name read as another (docs/security.md case 218)", () => {
    expect(exportFileName({ id: "s1", title: "invoice\u202Egpj.exe" })).toBe("invoicegpj.exe.md");
    expect(exportFileName({ id: "s1", title: "\u2067\u200F\u061C" })).toBe("chat-s1.md");
  });
});
