import { AppError } from "../runtime/app-error.js";
import { skillNamePattern } from "../wire/skill-name-pattern.js";

/** Throws VALIDATION_ERROR unless `name` is a plain skill name. */
export function assertSkillName(name: string): void {
  if (!skillNamePattern.test(name)) {
    throw new AppError("VALIDATION_ERROR", "Invalid skill name: use the name BMAD gives it, e.g. bmad-prd (letters, digits, '.', '_', '-')");
  }
}

/**
 * Up to `max` known names closest to `name`: those containing it or contained in it first, then by edit
 * distance, ties in byte order. Used to say "did you mean" when a skill is not found.
 */
export function closeNames(name: string, known: readonly string[], max = 5): string[] {
  const wanted = name.toLowerCase();
  const scored = known.map((candidate) => {
    const lower = candidate.toLowerCase();
    const contains = lower.includes(wanted) || wanted.includes(lower) ? 0 : 1;
    return { candidate, contains, distance: editDistance(wanted, lower) };
  });
  const limit = Math.max(3, Math.floor(wanted.length / 2));
  return scored
    .filter((score) => score.contains === 0 || score.distance <= limit)
    .sort((a, b) => a.contains - b.contains || a.distance - b.distance || (a.candidate < b.candidate ? -1 : a.candidate > b.candidate ? 1 : 0))
    .slice(0, max)
    .map((score) => score.candidate);
}

/** The SKILL_NOT_FOUND error for `name`, naming the close names. */
export function skillNotFound(name: string, known: readonly string[]): AppError {
  const close = closeNames(name, known);
  const hint = close.length > 0 ? `; close names: ${close.join(", ")}` : "";
  return new AppError("SKILL_NOT_FOUND", `Skill not found: ${name}${hint}`);
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
