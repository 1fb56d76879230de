import { normaliseSpace } from "@agent-orchestrator/shared/wire";

/**
 * Whether one command (a piece of a command line, already cut at its separators) matches an approval pattern: the
 * whole command, `*` standing for any text, every other character itself; runs of whitespace count as one space on
 * both sides. A wildcard match with one step back per `*` (no regular expression), so its time is bounded by
 * pattern length × command length whatever the pattern holds.
 */
export function matchesCommandPattern(pattern: string, command: string): boolean {
  const wanted = normaliseSpace(pattern);
  const text = normaliseSpace(command);
  let at = 0;
  let next = 0;
  // the last `*` seen and where in the text it started matching: on a mismatch it takes one more character
  let star = -1;
  let starAt = 0;
  while (at < text.length) {
    if (next < wanted.length && wanted[next] !== "*" && wanted[next] === text[at]) {
      at += 1;
      next += 1;
    } else if (next < wanted.length && wanted[next] === "*") {
      star = next;
      starAt = at;
      next += 1;
    } else if (star !== -1) {
      next = star + 1;
      starAt += 1;
      at = starAt;
    } else {
      return false;
    }
  }
  while (next < wanted.length && wanted[next] === "*") next += 1;
  return next === wanted.length;
}
