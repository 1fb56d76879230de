import { contentTypeFor } from "../files/content-type.js";

/** A resource's MIME type: the files API's content type without its charset, since MCP carries text as JSON strings. */
export const resourceMimeType = (path: string): string => contentTypeFor(path).split(";")[0]!;
