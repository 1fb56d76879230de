const replacements: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/**
 * Makes text inert in HTML, both as element content and inside a quoted attribute value
 * (quotes are escaped too, so a value can never close its attribute).
 */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (character) => replacements[character] ?? character);
