/** A piece of a search's match: the text as shown, and whether it is the text searched for. */
export interface MatchPart {
  text: string;
  hit: boolean;
}

/** Splits `match` around every place that holds `query`, ignoring case, so the hits can be marked. */
export function matchParts(match: string, query: string): MatchPart[] {
  const needle = query.toLowerCase();
  if (needle === "") return [{ text: match, hit: false }];
  const haystack = match.toLowerCase();
  const parts: MatchPart[] = [];
  let from = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) {
    if (at > from) parts.push({ text: match.slice(from, at), hit: false });
    parts.push({ text: match.slice(at, at + needle.length), hit: true });
    from = at + needle.length;
  }
  if (from < match.length || parts.length === 0) parts.push({ text: match.slice(from), hit: false });
  return parts;
}
