/** A skill name as BMAD writes it: no `/`, no leading dot, so it can never name a path (docs/bmad-releases.md). */
export const skillNamePattern = /^[a-z0-9][a-z0-9._-]{0,100}$/i;
