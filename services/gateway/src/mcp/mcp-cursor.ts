import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { parseJson } from "@agent-orchestrator/shared/runtime";

/** Longer than any cursor this server makes; a longer one is refused before it is decoded. */
const maxCursorChars = 2048;

/** An opaque MCP list cursor: the JSON of where the next page starts, base64url. */
export function encodeCursor(position: object): string {
  return Buffer.from(JSON.stringify(position)).toString("base64url");
}

/** The position a client's cursor names, checked against `schema`; a cursor this server did not make is invalid params. */
export function decodeCursor<S extends z.ZodType>(cursor: string | undefined, schema: S): z.infer<S> | undefined {
  if (cursor === undefined) return undefined;
  const parsed = cursor.length <= maxCursorChars ? parseJson(Buffer.from(cursor, "base64url").toString("utf8")) : undefined;
  const position = parsed?.ok ? schema.safeParse(parsed.value) : undefined;
  if (!position?.success) throw new McpError(ErrorCode.InvalidParams, "Invalid cursor");
  return position.data as z.infer<S>;
}
