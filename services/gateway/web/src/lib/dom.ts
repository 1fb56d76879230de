/** A child of an element: text is always added as a text node, never parsed as HTML. */
export type Child = Node | string | null | undefined | false;

type Attribute = string | number | boolean | undefined | ((event: Event) => void);

/**
 * Builds an element. Strings become attributes (or event listeners for `on…` functions); true sets a
 * boolean attribute, false and undefined leave it out. Callers pass only their own attribute names, so
 * untrusted text can reach the DOM only as text content or as a plain attribute value.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, Attribute> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === "function") element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, "");
    else if (value !== false && value !== undefined) element.setAttribute(name, String(value));
  }
  element.append(...children.filter((child): child is Node | string => child !== null && child !== undefined && child !== false));
  return element;
}

/** Finds an element the page's HTML is known to hold; a missing one is a broken page, not a runtime case. */
export function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no #${id}`);
  return element as T;
}
