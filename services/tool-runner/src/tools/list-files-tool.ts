import { jsonBytes } from "../reply-budget.js";
import type { ToolHandler } from "./tool-handler.js";
import { unservableNamesReply } from "./unservable-names.js";

/**
 * `list_files` → `{success, path, entries:[{name, type, size}], truncated}`, bounded by count and reply size.
 * Every name listed can be opened; names that cannot are left out and counted (`unservable_names`).
 */
export const listFilesTool: ToolHandler<"list_files"> = async (args, context, deps) => {
  const listing = await deps.sandbox.list(context, args.path);
  const reply = {
    success: true as const,
    path: listing.path,
    entries: listing.entries,
    truncated: listing.truncated,
    ...unservableNamesReply(listing.unservable),
  };
  const budget = deps.replyBudget();
  for (let bytes = jsonBytes(reply); bytes > budget && reply.entries.length > 0; bytes = jsonBytes(reply)) {
    reply.entries = reply.entries.slice(0, Math.max(0, Math.floor((reply.entries.length * budget) / bytes) - 1));
    reply.truncated = true;
  }
  return reply;
};
