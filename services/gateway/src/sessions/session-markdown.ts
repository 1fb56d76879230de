import { withoutBidiFormat, type SessionView } from "@agent-orchestrator/shared/wire";

/** What an export names besides the chat itself: looked up by the route, each with its id as fallback. */
export interface ExportNames {
  agentName: string;
  projectName: string;
}

/**
 * A chat as a Markdown document (`GET /api/sessions/:id/export`): a header (title, agent, project, owner, dates,
 * token use), then each visible message as a `**You:**` or `**<agent name>:**` section, with the files attached
 * to a message listed under it. The messages are the agent's Markdown as it wrote it.
 */
export function sessionMarkdown(session: SessionView, names: ExportNames): string {
  const { usage } = session;
  const lines = [
    `# ${oneLine(session.title) || "Untitled chat"}`,
    "",
    `- Agent: ${names.agentName} (\`${session.agent_id}\`)`,
    `- Project: ${names.projectName}`,
    `- Owner: ${session.owner}`,
    `- Started: ${session.created_at}`,
    `- Last changed: ${session.updated_at}`,
    `- Turns: ${session.turns}`,
    `- Tokens: ${usage.total_tokens} (${usage.prompt_tokens} prompt, ${usage.completion_tokens} completion)`,
    ...(session.workflows.length > 0 ? [`- Workflows: ${session.workflows.map(code).join(", ")}`] : []),
    ...(session.files_written.length > 0 ? [`- Files written: ${session.files_written.map(code).join(", ")}`] : []),
  ];
  for (const message of session.messages) {
    lines.push("", "---", "", `**${message.role === "user" ? "You" : oneLine(names.agentName)}:**`, "", message.content);
    const attached = message.attachments ?? [];
    // a file kept in the chat's scratch space (a project with a git repository) is named as the model was told it
    if (attached.length > 0) lines.push("", "Attached:", ...attached.map((file) => `- ${code(file.folder === "session" ? `{session-folder}/${file.path}` : file.path)}`));
  }
  return `${lines.join("\n")}\n`;
}

/**
 * A file name for the export: the title without characters a file system or a header refuses, and without bidi format
 * characters (a title made from the first message may hold them, and `a\u202Egpj.md` would show as `adm.jpg`), never empty.
 */
export function exportFileName(session: Pick<SessionView, "id" | "title">): string {
  const base = withoutBidiFormat(session.title).replace(/[\\/:*?"<>|\p{Cc}]+/gu, " ").replace(/\s+/g, " ").trim().slice(0, 100).trim();
  return `${base || `chat-${session.id}`}.md`;
}

const oneLine = (text: string): string => text.replace(/\s+/g, " ").trim();
/** Inline code that holds any text: a fence longer than any run of backticks in it. */
const code = (text: string): string => {
  const fence = "`".repeat(Math.max(0, ...Array.from(text.matchAll(/`+/g), (run) => run[0].length)) + 1);
  return `${fence}${text.startsWith("`") || text.endsWith("`") ? ` ${text} ` : text}${fence}`;
};
