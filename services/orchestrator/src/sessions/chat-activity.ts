import { z } from "zod";
import { parseJson } from "@agent-orchestrator/shared/runtime";
import { type ConversationMessage } from "@agent-orchestrator/shared/wire";

/** What a chat did, as SessionView shows it (shared/src/wire/session-messages.ts). */
export interface ChatActivity {
  workflows: string[];
  files_written: string[];
}

/** Entries of each list at most: a chat that wrote thousands of files still answers within one NATS message. */
export const maxActivityEntries = 200;

const StoredToolCall = z.object({ id: z.string(), function: z.object({ name: z.string(), arguments: z.string() }) });
const StringField = (name: string) => z.looseObject({ [name]: z.string() });
const FilesWritten = z.looseObject({ files_written: z.array(z.string()) });

/**
 * A result as the conversation keeps it is the tool's JSON, cut in the middle when long (truncate-middle.ts), so
 * its start survives: every result begins with its `success` field.
 */
const succeeded = (result: string | undefined): boolean => result?.startsWith('{"success":true') === true;

/** run_script names its files right after its exit code, so a long result cut in the middle still has them. */
const scriptFilesPattern = /"files_written":(\[[^\]]*\])/;

/**
 * The workflows and skills a chat ran and the files it wrote, from its stored tool calls and their results: a
 * successful `preload_workflow` (its workflow path) or `load_skill` (its skill name); the path a successful
 * `save_output` or `edit_file` answered (else the one it was given); every file `run_script` says it wrote, even
 * when the script failed (what it wrote was kept). Each once, in the order they happened, at most
 * `maxActivityEntries` each. A subagent's calls are its own conversation's, not the chat's.
 */
export function chatActivity(messages: readonly ConversationMessage[]): ChatActivity {
  const results = new Map<string, string>();
  for (const message of messages) {
    if (message.role === "tool" && typeof message["tool_call_id"] === "string" && typeof message["content"] === "string") {
      results.set(message["tool_call_id"], message["content"]);
    }
  }
  const workflows = new Set<string>();
  const files = new Set<string>();
  for (const message of messages) {
    if (message.role !== "assistant" || !Array.isArray(message["tool_calls"])) continue;
    for (const candidate of message["tool_calls"] as unknown[]) {
      const call = StoredToolCall.safeParse(candidate);
      if (!call.success) continue;
      const result = results.get(call.data.id);
      const args = parsed(call.data.function.arguments);
      switch (call.data.function.name) {
        case "preload_workflow":
          if (succeeded(result)) addField(workflows, args, "workflow_path");
          break;
        case "load_skill":
          if (succeeded(result)) addField(workflows, args, "name");
          break;
        case "save_output":
        case "edit_file":
          if (succeeded(result) && !addField(files, parsed(result), "path")) addField(files, args, "file_path");
          break;
        case "run_script":
          for (const path of scriptFiles(result)) files.add(path);
          break;
      }
    }
  }
  return { workflows: [...workflows].slice(0, maxActivityEntries), files_written: [...files].slice(0, maxActivityEntries) };
}

function parsed(text: string | undefined): unknown {
  const result = text === undefined ? undefined : parseJson(text);
  return result?.ok ? result.value : undefined;
}

/** Adds `value[name]` when it is a non-empty string; says whether it did. */
function addField(into: Set<string>, value: unknown, name: string): boolean {
  const field = StringField(name).safeParse(value);
  const text = field.success ? (field.data[name] as string) : "";
  if (text !== "") into.add(text);
  return text !== "";
}

function scriptFiles(result: string | undefined): string[] {
  const whole = FilesWritten.safeParse(parsed(result));
  if (whole.success) return whole.data.files_written;
  const found = result === undefined ? null : scriptFilesPattern.exec(result);
  const listed = FilesWritten.shape.files_written.safeParse(parsed(found?.[1]));
  return listed.success ? listed.data : [];
}
