/**
 * The periods spending is counted in (docs/models.md "Cost totals"): UTC months and days, so a budget resets at
 * the same instant on every replica whatever its time zone.
 */
export const monthOf = (at: Date): string => at.toISOString().slice(0, 7);
export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);

/** The start of the next UTC month: when a project's monthly budget starts again. */
export const nextMonthStart = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));

/** The start of the next UTC day: when a user's daily budget starts again. */
export const nextDayStart = (at: Date): Date => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate() + 1));
