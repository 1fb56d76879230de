import { jsonBytes, truncateToJsonBytes } from "../reply-budget.js";

/**
 * A sandbox's stdout and stderr, already cut to their own limit, within `room` bytes of JSON too (the reply's
 * max_payload). The shorter stream stays whole when it fits half the room; the longer one gets the rest.
 */
export function fitStreams(stdout: string, stderr: string, room: number): { stdout: string; stderr: string } {
  const sizes = [jsonBytes(stdout), jsonBytes(stderr)] as const;
  if (sizes[0] + sizes[1] <= room) return { stdout, stderr };
  const half = Math.floor(room / 2);
  const stdoutRoom = sizes[1] <= half ? room - sizes[1] : sizes[0] <= half ? sizes[0] : half;
  const kept = truncateToJsonBytes(stdout, stdoutRoom);
  return { stdout: kept, stderr: truncateToJsonBytes(stderr, Math.max(0, room - jsonBytes(kept))) };
}
