import type { ApiError } from "../api/api-error.js";

/**
 * What a refused upload tells the user, by the gateway's code (docs/uploads.md "Uploads"): what went wrong
 * with this file and what to do, with the gateway's own message, which names the limit or the rule. `space` is
 * where the file was going: a project's files, or a chat's scratch space, which has a quota of its own.
 */
export function uploadErrorText(failure: Pick<ApiError, "code" | "message" | "status">, space: "project" | "chat" = "project"): string {
  const full = space === "project" ? "The project is full" : "This chat's own space is full";
  // a chat's scratch files are not deleted one by one: a new chat has an empty space
  const remedy = space === "project" ? "Delete files" : "Start a new chat for this file";
  const error = { ...failure, message: /[.!?]$/.test(failure.message) ? failure.message : `${failure.message}.` };
  switch (error.code) {
    case "PAYLOAD_TOO_LARGE":
      return `Too large to upload. ${error.message}`;
    case "QUOTA_EXCEEDED":
      return `${full}: ${error.message} ${remedy}, or ask whoever runs the server for a larger quota.`;
    case "INVALID_PATH":
    case "NAME_TOO_LONG":
    case "VALIDATION_ERROR":
      return `This name cannot be stored: ${error.message} Rename the file and try again.`;
    case "PROTECTED_PATH":
      return `This place is protected: ${error.message}`;
    case "PROJECT_FORBIDDEN":
      return "You may read this project but not change it (viewer).";
    default:
      if (error.status === 413) return `Too large to upload. ${error.message}`;
      if (error.status === 507) return `${full}: ${error.message}`;
      return `${error.code}: ${error.message}`;
  }
}
