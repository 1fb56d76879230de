import type { MenuItem } from "./agent.js";

/**
 * The skill a menu item invokes: its `skill`, or a 6.2 `exec="skill:<name>"` target (docs/bmad-releases.md)
 * from a registry that kept only the `exec`.
 */
export function menuItemSkill(item: MenuItem): string | undefined {
  if (item.skill !== undefined) return item.skill;
  const name = /^skill:\s*(\S+)$/.exec(item.exec?.trim() ?? "")?.[1];
  return name;
}
