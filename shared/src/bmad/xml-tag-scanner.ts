import { decodeEntities } from "./xml-entities.js";

/** An element found by the scanner. Names (element and attribute) are lower-cased; BMAD files are not consistent. */
export interface TagElement {
  readonly kind: "element";
  readonly name: string;
  /** first occurrence wins when a name repeats; values have entities decoded */
  readonly attributes: ReadonlyMap<string, string>;
  readonly children: TagNode[];
}

/** Character data: entities decoded, CDATA kept verbatim. */
export interface TagText {
  readonly kind: "text";
  readonly value: string;
}

/** A node of the scanned tree. */
export type TagNode = TagElement | TagText;

/** The scanned element and what the scanner tolerated on the way. */
export interface ScanResult {
  root: TagElement;
  /** what the scanner tolerated (stray end tags, unclosed elements, broken tags), for warnings */
  notes: string[];
}

/** Deeper nesting than any BMAD file needs; past it, tags are kept as text so that no walk can overflow. */
export const maxTagDepth = 64;

const namePattern = /[A-Za-z_][\w.:-]*/y;
const endTagPattern = /<\/\s*([A-Za-z_][\w.:-]*)\s*>/y;
const attributeNamePattern = /[^\s=/>"'<]+/y;
const unquotedValuePattern = /[^\s>]+/y;

type StartTag =
  | { ok: true; name: string; attributes: Map<string, string>; selfClosing: boolean; end: number }
  | { ok: false; reason?: string };

/**
 * A tolerant tag scanner for the XML agents of BMAD 6.0 alphas to 6.2, not an XML parser: it reads the element whose start tag is at `start` and
 * everything inside it, up to its end tag or the end of the text. It never throws and never rejects: a `<`
 * that does not begin a well-formed tag is text, a stray end tag is skipped, an element left open is closed
 * by its parent's end tag or by the end of the text. Comments, `<?…?>` and `<!…>` declarations are skipped
 * (so no DTD, no entity expansion). Attribute values may hold `<`, `>` and newlines; quotes may be single
 * or double. Returns undefined when there is no start tag at `start`. Not a library parser: an XML parser
 * (saxes) rejects the ill-formed agents BMAD ships, and an HTML one (parse5) ignores `/>` on `<item … />`.
 */
export function scanElement(source: string, start: number): ScanResult | undefined {
  const first = readStartTag(source, start);
  if (!first.ok) return undefined;
  const root = element(first.name, first.attributes);
  const notes: string[] = [];
  if (first.selfClosing) return { root, notes };

  const stack: TagElement[] = [root];
  let position = first.end;
  while (stack.length > 0 && position < source.length) {
    const parent = stack[stack.length - 1] as TagElement;
    const lt = source.indexOf("<", position);
    if (lt < 0) {
      addText(parent, decodeEntities(source.slice(position)));
      position = source.length;
      break;
    }
    if (lt > position) addText(parent, decodeEntities(source.slice(position, lt)));
    position = skipMarkup(source, lt, parent, notes) ?? readTag(source, lt, stack, notes);
  }
  if (stack.length > 0) notes.push(`<${stack.map((open) => open.name).join("> <")}> not closed before the end of the text`);
  return { root, notes };
}

/** Comments, CDATA, processing instructions and declarations; returns the position after them, if one is at `lt`. */
function skipMarkup(source: string, lt: number, parent: TagElement, notes: string[]): number | undefined {
  if (source.startsWith("<!--", lt)) return after(source, "-->", lt + 4, notes, "comment");
  if (source.startsWith("<![CDATA[", lt)) {
    const end = source.indexOf("]]>", lt + 9);
    addText(parent, source.slice(lt + 9, end < 0 ? source.length : end));
    return after(source, "]]>", lt + 9, notes, "CDATA section");
  }
  if (source.startsWith("<?", lt)) return after(source, "?>", lt + 2, notes, "processing instruction");
  if (source.startsWith("<!", lt)) return after(source, ">", lt + 2, notes, "declaration");
  return undefined;
}

function after(source: string, terminator: string, from: number, notes: string[], what: string): number {
  const end = source.indexOf(terminator, from);
  if (end >= 0) return end + terminator.length;
  notes.push(`${what} not closed before the end of the text`);
  return source.length;
}

/** An end tag or a start tag at `lt`; anything else there is the literal text `<`. */
function readTag(source: string, lt: number, stack: TagElement[], notes: string[]): number {
  const parent = stack[stack.length - 1] as TagElement;
  if (source[lt + 1] === "/") {
    endTagPattern.lastIndex = lt;
    const match = endTagPattern.exec(source);
    if (match) {
      closeElement((match[1] as string).toLowerCase(), stack, notes);
      return lt + match[0].length;
    }
  } else {
    const tag = readStartTag(source, lt);
    if (tag.ok && stack.length >= maxTagDepth) {
      notes.push(`nesting deeper than ${maxTagDepth}: <${tag.name}> kept as text`);
      addText(parent, source.slice(lt, tag.end));
      return tag.end;
    }
    if (tag.ok) {
      const child = element(tag.name, tag.attributes);
      parent.children.push(child);
      if (!tag.selfClosing) stack.push(child);
      return tag.end;
    }
    if (tag.reason) notes.push(tag.reason);
  }
  addText(parent, "<");
  return lt + 1;
}

/** Closes the innermost open element of that name, and any left open inside it; a stray end tag is ignored. */
function closeElement(name: string, stack: TagElement[], notes: string[]): void {
  let index = stack.length - 1;
  while (index >= 0 && (stack[index] as TagElement).name !== name) index--;
  if (index < 0) {
    notes.push(`stray </${name}> ignored`);
    return;
  }
  for (let open = stack.length - 1; open > index; open--) notes.push(`<${(stack[open] as TagElement).name}> not closed`);
  stack.length = index;
}

function readStartTag(source: string, lt: number): StartTag {
  namePattern.lastIndex = lt + 1;
  const nameMatch = namePattern.exec(source);
  if (source[lt] !== "<" || !nameMatch) return { ok: false };
  const name = nameMatch[0].toLowerCase();
  let position = lt + 1 + nameMatch[0].length;
  // `<agent-bundle` is not `<agent`, and `<a→b` is text, not a tag
  if (position < source.length && !/[\s/>]/.test(source[position] as string)) return { ok: false };
  const attributes = new Map<string, string>();
  for (;;) {
    while (position < source.length && /\s/.test(source[position] as string)) position++;
    const character = source[position];
    if (character === undefined) return { ok: false, reason: `<${name}> tag not closed before the end of the text` };
    if (character === ">") return { ok: true, name, attributes, selfClosing: false, end: position + 1 };
    if (character === "/" && source[position + 1] === ">") return { ok: true, name, attributes, selfClosing: true, end: position + 2 };
    if (character === "<") return { ok: false, reason: `<${name}> tag interrupted by another "<"` };
    attributeNamePattern.lastIndex = position;
    const attributeName = attributeNamePattern.exec(source)?.[0];
    if (attributeName === undefined) {
      position++; // a stray quote, `=` or `/` between attributes
      continue;
    }
    position += attributeName.length;
    const value = readAttributeValue(source, position);
    if (!value.ok) return { ok: false, reason: `<${name}> has an unterminated ${attributeName} value` };
    position = value.end;
    const key = attributeName.toLowerCase();
    if (!attributes.has(key)) attributes.set(key, decodeEntities(value.value));
  }
}

function readAttributeValue(source: string, from: number): { ok: true; value: string; end: number } | { ok: false } {
  let position = from;
  while (/\s/.test(source[position] ?? "")) position++;
  if (source[position] !== "=") return { ok: true, value: "", end: from }; // a bare attribute
  position++;
  while (/\s/.test(source[position] ?? "")) position++;
  const quote = source[position];
  if (quote === '"' || quote === "'") {
    const end = source.indexOf(quote, position + 1);
    if (end < 0) return { ok: false };
    return { ok: true, value: source.slice(position + 1, end), end: end + 1 };
  }
  unquotedValuePattern.lastIndex = position;
  let value = unquotedValuePattern.exec(source)?.[0] ?? "";
  // `<c cmd=x/>`: the slash belongs to the tag, not the value
  if (value.endsWith("/") && source[position + value.length] === ">") value = value.slice(0, -1);
  return { ok: true, value, end: position + value.length };
}

function element(name: string, attributes: Map<string, string>): TagElement {
  return { kind: "element", name, attributes, children: [] };
}

function addText(parent: TagElement, value: string): void {
  if (value.length > 0) parent.children.push({ kind: "text", value });
}
